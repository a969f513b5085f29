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
 * reference) is put whole, at what the shard takes, the refused records put again: 1,000 records a
 * second of the layer's clock, which the test moves.
 */
class KinesisFeederITCase {
    private static final long RECORDS = 4_000;

    /**
     * The demo's stream, sized by {@link LocalKinesis#shardsFor} from the fleet (200 devices, 2,000
     * readings a second): a second and a half of the fleet, as a feeder that missed half a second
     * puts it at once, fits in one second of the layer's clock on every shard. On 2 shards, the old
     * default, 101 devices hashed to one of them: 1,010 records a second, above its 1,000.
     */
    @Test
    void theDemoStreamTakesTheFleetWithoutRefusingAPut() throws Exception {
        try (Kinesalite kinesalite = Kinesalite.start()) {
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("source", "kinesis");
            settings.put("kinesis.stream-arn", Kinesalite.streamArn("demo"));
            settings.put("kinesis.endpoint", kinesalite.endpoint().toString());
            settings.put("generator.rate", "2000");
            settings.put("generator.devices", "200");
            settings.put("generator.count", "3000");
            PeriodTablesConfig config = ConfigLoader.fromMap(settings, true);
            int shards = LocalKinesis.shardsFor(config);
            kinesalite.createStream("demo", shards);

            kinesalite.layer().stopClock();
            KinesisFeeder feeder = KinesisFeeder.start(config);
            // all put, or a put refused (which, with the clock stopped, would be put again for ever)
            while (feeder.put() < 3000 && feeder.refused() == 0 && feeder.failure() == null) {
                TimeUnit.MILLISECONDS.sleep(50);
            }
            feeder.stop();
            kinesalite.layer().startClock();
            assertThat(feeder.refused()).as("puts refused by %d shards", shards).isZero();
            assertThat(feeder.put()).isEqualTo(3000);
            System.out.printf("feeder: the demo fleet's 1.5 s into %d shards in one second, none refused%n", shards);
        }
    }

    /**
     * A fleet goes in a call every {@link KinesisFeeder#PUT_INTERVAL}, not in a call per reading: at 100
     * readings a second, 10 a call. Putting each reading as soon as it was due made a call of the few due
     * while the last one ran (at the demo's 2,000 a second, hundreds of calls a second), and kinesalite's
     * per-call work made the emulator take a quarter of a 2-core laptop: 0.30 CPU ms a record in calls of
     * 4, 0.09 in calls of 200. A slow call only makes the next one larger.
     */
    @Test
    void theFleetIsPutInACallATenthOfASecond() throws Exception {
        try (Kinesalite kinesalite = Kinesalite.start()) {
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("source", "kinesis");
            settings.put("kinesis.stream-arn", Kinesalite.streamArn("calls"));
            settings.put("kinesis.endpoint", kinesalite.endpoint().toString());
            settings.put("generator.rate", "100");
            settings.put("generator.devices", "10");
            PeriodTablesConfig config = ConfigLoader.fromMap(settings, true);
            kinesalite.createStream("calls", 1);

            KinesisFeeder feeder = KinesisFeeder.start(config);
            try {
                // past the first calls, which put what became due while the client started
                awaitPut(feeder, 100);
                long callsBefore = kinesalite.layer().served("putRecordsCalls");
                long putBefore = feeder.put();
                awaitPut(feeder, putBefore + 300);
                long calls = kinesalite.layer().served("putRecordsCalls") - callsBefore;
                long put = feeder.put() - putBefore;
                System.out.printf(
                        "feeder: %,d records at 100 a second in %d PutRecords calls, %.1f a call%n",
                        put, calls, (double) put / calls);
                // 10 a call, 9 when the one before took a reading due at its own round; more after a slow call
                assertThat((double) put / calls)
                        .as("records a PutRecords call (%,d in %d calls)", put, calls)
                        .isGreaterThanOrEqualTo(8);
            } finally {
                feeder.stop();
            }
        }
    }

    private static void awaitPut(KinesisFeeder feeder, long records) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (feeder.put() < records) {
            assertThat(feeder.failure()).isNull();
            assertThat(System.nanoTime())
                    .as("%,d records put within 60 s", records)
                    .isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

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

            // The layer's clock stands still but when the test moves it: the shard takes 1,000
            // records each second of it, however slow or fast this machine puts them.
            kinesalite.layer().stopClock();
            KinesisFeeder feeder = KinesisFeeder.start(config);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            int seconds = 0;
            long refusedBefore = 0;
            while (feeder.put() < RECORDS && feeder.failure() == null) {
                assertThat(System.nanoTime()).as("all put within 120 s").isLessThan(deadline);
                assertThat(feeder.put())
                        .as("a shard takes 1,000 records a second")
                        .isLessThanOrEqualTo(1_000L * (seconds + 1));
                long refused = kinesalite.layer().refused("refusedRecords");
                if (refused > refusedBefore) { // the shard has taken its second's 1,000: the next second
                    kinesalite.layer().advanceClock(Duration.ofSeconds(1));
                    seconds++;
                    refusedBefore = refused;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
            assertThat(feeder.stop()).isEqualTo(RECORDS);
            assertThat(feeder.failure()).isNull();
            assertThat(feeder.refused()).isPositive();
            assertThat(kinesalite.layer().refused("refusedRecords")).isEqualTo(feeder.refused());
            // 4,000 records at 1,000 a second: 3 more seconds; a fourth when a retry of refused records
            // meets a second the test has just advanced (the test's clock steps on refusals it polls)
            assertThat(seconds)
                    .as("4,000 records at 1,000 a second: 3 more seconds, or 4")
                    .isBetween(3, 4);
            kinesalite.layer().startClock();

            String iterator = kinesis.getShardIterator(b -> b.streamARN(arn)
                            .shardId("shardId-000000000000")
                            .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            assertThat(kinesis.getRecords(b -> b.streamARN(arn).shardIterator(iterator))
                            .records())
                    .hasSize((int) RECORDS);
            System.out.printf(
                    "feeder: %,d records at 4,000 a second into 1 shard in %d s of the layer's clock, %,d puts of records"
                            + " refused%n",
                    RECORDS, seconds, feeder.refused());
        }
    }
}
