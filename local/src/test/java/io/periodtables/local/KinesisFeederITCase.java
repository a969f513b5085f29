package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Kinesalite;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * The local run's feeder against the Kinesis fidelity layer: a fleet faster than its stream's one
 * shard takes ("Each shard can support writes up to 1,000 records per second", PutRecords' API
 * reference) is put whole, at what the shard takes, the refused records put again.
 */
class KinesisFeederITCase {
    private static final long RECORDS = 4_000;

    @Test
    void aFleetFasterThanItsShardIsPutWholeAtWhatTheShardTakes() throws Exception {
        try (Kinesalite kinesalite = Kinesalite.start();
                KinesisClient kinesis = kinesalite.kinesisClient()) {
            String arn = kinesalite.createStream("feeder", 1);
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("source", "kinesis");
            settings.put("kinesis.stream-arn", arn);
            settings.put("kinesis.endpoint", kinesalite.endpoint().toString());
            settings.put("generator.rate", "4000");
            settings.put("generator.devices", "10");
            settings.put("generator.count", String.valueOf(RECORDS));
            PeriodTablesConfig config = ConfigLoader.fromMap(settings, true);

            long start = System.nanoTime();
            KinesisFeeder feeder = KinesisFeeder.start(config);
            while (feeder.put() < RECORDS && feeder.failure() == null) {
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
                TimeUnit.MILLISECONDS.sleep(20);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(feeder.stop()).isEqualTo(RECORDS);
            assertThat(feeder.failure()).isNull();
            assertThat(feeder.refused()).isPositive();
            assertThat(kinesalite.layer().refused("refusedRecords")).isEqualTo(feeder.refused());
            assertThat(took)
                    .as("4,000 records at 1,000 a second: the fourth second's")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(3));

            String iterator = kinesis.getShardIterator(b -> b.streamARN(arn)
                            .shardId("shardId-000000000000")
                            .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            assertThat(kinesis.getRecords(b -> b.streamARN(arn).shardIterator(iterator))
                            .records())
                    .hasSize((int) RECORDS);
            System.out.printf(
                    "feeder: %,d records at 4,000 a second into 1 shard in %d ms, %,d puts of records refused%n",
                    RECORDS, took.toMillis(), feeder.refused());
        }
    }
}
