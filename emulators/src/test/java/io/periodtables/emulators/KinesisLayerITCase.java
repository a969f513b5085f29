package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ExpiredIteratorException;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.KinesisException;
import software.amazon.awssdk.services.kinesis.model.LimitExceededException;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * The Kinesis fidelity layer's worked examples: each test follows a sentence of Kinesis's
 * documentation (quoted in its name's comment and in docs/DESIGN.md) and talks to the layer over
 * HTTP with the AWS SDK's Kinesis client, without retries, so that a refusal reaches the test as
 * Kinesis answers it. The layer's clock is stopped in each test and moved by hand: the counts hold
 * however slow the machine.
 */
class KinesisLayerITCase {
    private static final int MIB = 1024 * 1024;
    private static final String SHARD_0 = "shardId-000000000000";

    private static Kinesalite kinesalite;
    private static KinesisClient kinesis;
    private static KinesisClient second;

    @BeforeAll
    static void start() {
        kinesalite = Kinesalite.start();
        kinesis = kinesalite.kinesisClientWithoutRetries();
        second = kinesalite.kinesisClientWithoutRetries();
    }

    @AfterAll
    static void stop() {
        second.close();
        kinesis.close();
        kinesalite.close();
    }

    @BeforeEach
    void resetLayer() {
        kinesalite.layer().reset();
    }

    /**
     * "Each shard can support up to five read transactions per second." (quotas page), shared by every
     * consumer of the stream: two consumers' calls count against the same five.
     */
    @Test
    void getRecordsServesFiveCallsASecondPerShardWhoeverMakesThem() {
        kinesalite.createStream("five-reads", 1);
        kinesalite.layer().stopClock();
        String iterator = iterator(kinesis, "five-reads", SHARD_0);
        for (int i = 0; i < 3; i++) {
            kinesis.getRecords(b -> b.shardIterator(iterator));
        }
        for (int i = 0; i < 2; i++) {
            second.getRecords(b -> b.shardIterator(iterator));
        }

        assertRateExceeded(() -> kinesis.getRecords(b -> b.shardIterator(iterator)), "five-reads", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMillis(999));
        assertRateExceeded(() -> second.getRecords(b -> b.shardIterator(iterator)), "five-reads", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMillis(1));
        assertThat(kinesis.getRecords(b -> b.shardIterator(iterator)).records()).isEmpty();

        assertThat(kinesalite.layer().refused("refusedGetRecordsByCalls")).isEqualTo(2);
        assertThat(kinesalite.layer().refused("refusedGetRecords")).isEqualTo(2);
        assertThat(kinesalite.layer().served("getRecords")).isEqualTo(6);
    }

    /**
     * The same five, shared with other consumer applications of the stream declared to the layer: each
     * polls every shard once a second and reads what is put into it.
     */
    @Test
    void otherConsumersTakeACallASecondEachAndReadWhatIsPut() {
        kinesalite.createStream("others", 1);
        kinesalite.layer().stopClock();
        kinesalite.layer().otherConsumers("others", 2);
        String iterator = iterator(kinesis, "others", SHARD_0);
        for (int i = 0; i < 3; i++) {
            kinesis.getRecords(b -> b.shardIterator(iterator));
        }
        assertRateExceeded(() -> kinesis.getRecords(b -> b.shardIterator(iterator)), "others", SHARD_0);
        assertThat(kinesalite.layer().refused("refusedGetRecordsByCalls")).isEqualTo(1);

        // 512 KiB put: the two others read 1 MiB of the shard's 2 MiB a second, half a second of it
        kinesalite.layer().advanceClock(Duration.ofSeconds(1));
        kinesis.putRecord(b -> b.streamName("others").partitionKey("k").data(blob(MIB / 2 - 1)));
        assertRateExceeded(() -> kinesis.getRecords(b -> b.shardIterator(iterator)), "others", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMillis(499));
        assertRateExceeded(() -> kinesis.getRecords(b -> b.shardIterator(iterator)), "others", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMillis(1));
        assertThat(kinesis.getRecords(b -> b.shardIterator(iterator)).records()).hasSize(1);
        assertThat(kinesalite.layer().refused("refusedGetRecordsByBytes")).isEqualTo(2);

        assertThatThrownBy(() -> kinesalite.layer().otherConsumers("others", 5))
                .hasMessageContaining("otherConsumers of others must be 0 to 4");
    }

    /**
     * "Each shard can support up to a maximum total data read rate of 2 MiB per second via GetRecords.
     * If a call to GetRecords returns 10 MiB, subsequent calls made within the next 5 seconds throw an
     * exception." (quotas page); "GetRecords can retrieve up to 10 MiB of data per call from a single
     * shard" (same page): of 11 MiB, the next call returns the last.
     */
    @Test
    void aCallThatReturnedTenMiBHoldsTheShardFiveSeconds() {
        kinesalite.createStream("ten-mib", 1);
        kinesalite.layer().stopClock();
        for (int i = 0; i < 11; i++) { // 1 MiB a second is what a shard takes: one record of 1 MiB a second
            kinesis.putRecord(b -> b.streamName("ten-mib").partitionKey("k").data(blob(MIB - 1)));
            kinesalite.layer().advanceClock(Duration.ofSeconds(1));
        }
        String iterator = iterator(kinesis, "ten-mib", SHARD_0);
        GetRecordsResponse tenMiB = kinesis.getRecords(b -> b.shardIterator(iterator));
        assertThat(tenMiB.records()).hasSize(10);
        assertThat(kinesalite.layer().served("getRecordsBytes")).isEqualTo(10L * MIB);

        String next = tenMiB.nextShardIterator();
        assertRateExceeded(() -> kinesis.getRecords(b -> b.shardIterator(next)), "ten-mib", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMillis(4999));
        assertRateExceeded(() -> second.getRecords(b -> b.shardIterator(next)), "ten-mib", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMillis(1));
        assertThat(kinesis.getRecords(b -> b.shardIterator(next)).records())
                .singleElement()
                .satisfies(r -> assertThat(new BigInteger(r.sequenceNumber()))
                        .isGreaterThan(new BigInteger(tenMiB.records().get(9).sequenceNumber())));
        assertThat(kinesalite.layer().refused("refusedGetRecordsByBytes")).isEqualTo(2);
    }

    /**
     * "If there is insufficient provisioned throughput on the stream, subsequent calls made within the
     * next 1 second throw ProvisionedThroughputExceededException." (API reference, GetRecords): a call
     * that returned 2 MiB, a second's worth, holds the shard for that second.
     */
    @Test
    void aCallThatReturnedTwoMiBHoldsTheShardOneSecond() {
        kinesalite.createStream("two-mib", 1);
        kinesalite.layer().stopClock();
        for (int i = 0; i < 2; i++) {
            kinesis.putRecord(b -> b.streamName("two-mib").partitionKey("k").data(blob(MIB - 1)));
            kinesalite.layer().advanceClock(Duration.ofSeconds(1));
        }
        String iterator = iterator(kinesis, "two-mib", SHARD_0);
        String next = kinesis.getRecords(b -> b.shardIterator(iterator)).nextShardIterator();
        kinesalite.layer().advanceClock(Duration.ofMillis(999));
        assertRateExceeded(() -> kinesis.getRecords(b -> b.shardIterator(next)), "two-mib", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMillis(1));
        assertThat(kinesis.getRecords(b -> b.shardIterator(next)).records()).isEmpty();
    }

    /** "GetShardIterator has a limit of five transactions per second per account per open shard." (API reference) */
    @Test
    void getShardIteratorServesFiveCallsASecondPerShard() {
        kinesalite.createStream("iterators", 2);
        kinesalite.layer().stopClock();
        for (int i = 0; i < 5; i++) {
            iterator(i % 2 == 0 ? kinesis : second, "iterators", SHARD_0);
        }
        assertRateExceeded(() -> iterator(kinesis, "iterators", SHARD_0), "iterators", SHARD_0);
        iterator(kinesis, "iterators", "shardId-000000000001"); // another shard: its own five
        kinesalite.layer().advanceClock(Duration.ofSeconds(1));
        assertThat(iterator(kinesis, "iterators", SHARD_0)).isNotEmpty();
        assertThat(kinesalite.layer().refused("refusedGetShardIterator")).isEqualTo(1);
    }

    /**
     * "A shard iterator expires 5 minutes after it is returned to the requester." (API reference,
     * GetShardIterator): kinesalite's own rule, on the layer's clock.
     */
    @Test
    void aShardIteratorExpiresFiveMinutesAfterItWasReturned() {
        kinesalite.createStream("expiry", 1);
        kinesalite.layer().stopClock();
        String iterator = iterator(kinesis, "expiry", SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofMinutes(5));
        String next = kinesis.getRecords(b -> b.shardIterator(iterator)).nextShardIterator();
        kinesalite.layer().advanceClock(Duration.ofMillis(1));
        assertThatThrownBy(() -> kinesis.getRecords(b -> b.shardIterator(iterator)))
                .isInstanceOf(ExpiredIteratorException.class)
                .hasMessageContaining("Iterator expired");
        assertThat(kinesis.getRecords(b -> b.shardIterator(next)).records()).isEmpty();
    }

    /**
     * "The number of milliseconds the GetRecords response is from the tip of the stream, indicating how
     * far behind current time the consumer is. A value of zero indicates that record processing is caught
     * up, and there are no new records to process at this moment." (API reference, GetRecords): the age
     * of the first record the answer leaves for later.
     */
    @Test
    void millisBehindLatestIsTheAgeOfWhatIsLeftToRead() {
        kinesalite.createStream("behind", 1);
        kinesalite.layer().stopClock();
        for (int i = 0; i < 3; i++) {
            kinesis.putRecord(b -> b.streamName("behind").partitionKey("k").data(blob(10)));
            kinesalite.layer().advanceClock(Duration.ofSeconds(2));
        }
        String iterator = iterator(kinesis, "behind", SHARD_0);
        GetRecordsResponse firstTwo =
                kinesis.getRecords(b -> b.shardIterator(iterator).limit(2));
        assertThat(firstTwo.records()).hasSize(2);
        assertThat(firstTwo.millisBehindLatest())
                .as("the third record, put 2 s ago")
                .isEqualTo(2000);
        kinesalite.layer().advanceClock(Duration.ofMillis(1));
        GetRecordsResponse rest = kinesis.getRecords(b -> b.shardIterator(firstTwo.nextShardIterator()));
        assertThat(rest.records()).hasSize(1);
        assertThat(rest.millisBehindLatest()).isZero();
    }

    /**
     * "[...] the Kinesis data stream's retention period, which is the length of time data records are
     * accessible after they are added to the stream. The minimum value of a stream's retention period is
     * 24 hours." (API reference, DecreaseStreamRetentionPeriod): kinesalite's trimming, on the layer's clock.
     */
    @Test
    void aRecordIsTrimmedTwentyFourHoursAfterItWasPut() {
        kinesalite.createStream("retention", 1);
        kinesalite.layer().stopClock();
        kinesis.putRecord(b -> b.streamName("retention").partitionKey("k").data(blob(10)));
        // kinesalite keeps a record's time to the second (its sequence number's), rounded down
        kinesalite.layer().advanceClock(Duration.ofHours(24).minusSeconds(1));
        String kept = iterator(kinesis, "retention", SHARD_0);
        assertThat(kinesis.getRecords(b -> b.shardIterator(kept)).records()).hasSize(1);
        kinesalite.layer().advanceClock(Duration.ofMillis(1001)); // 24 h and 1 ms after the put
        String trimmed = iterator(kinesis, "retention", SHARD_0);
        assertThat(kinesis.getRecords(b -> b.shardIterator(trimmed)).records()).isEmpty();
    }

    /**
     * "EXPIRED: After the stream's retention period has expired, all the data records in the parent
     * shard have expired and are no longer accessible. [...] Calls to getStreamDescription().getShards
     * to enumerate the shards in the stream do not include EXPIRED shards in the list shards returned."
     * (developer guide, after resharding); "This action does not list expired shards." (API reference,
     * ListShards): a closed shard is gone 24 hours after it closed, on the layer's clock.
     */
    @Test
    void aClosedShardIsGoneOnceTheRetentionHasPassedSinceItClosed() {
        kinesalite.createStream("closed-expiry", 1);
        kinesalite.layer().stopClock();
        kinesalite.splitShard("closed-expiry", SHARD_0);
        // the shard's end is kept to the second (its ending sequence number's), rounded down
        kinesalite.layer().advanceClock(Duration.ofHours(24).minusSeconds(1));
        assertThat(listed("closed-expiry")).contains(SHARD_0).hasSize(3);
        assertThat(iterator(kinesis, "closed-expiry", SHARD_0)).isNotNull();

        kinesalite.layer().advanceClock(Duration.ofMillis(1001)); // 24 h and 1 ms after it closed
        assertThat(listed("closed-expiry")).doesNotContain(SHARD_0).hasSize(2);
        assertThat(kinesis.describeStream(b -> b.streamName("closed-expiry"))
                        .streamDescription()
                        .shards())
                .extracting(Shard::shardId)
                .doesNotContain(SHARD_0)
                .hasSize(2);
        assertThatThrownBy(() -> iterator(kinesis, "closed-expiry", SHARD_0))
                .isInstanceOf(ResourceNotFoundException.class)
                .hasMessageStartingWith(
                        "Shard " + SHARD_0 + " in stream closed-expiry under account 000000000000 does not exist");
        assertThat(iterator(kinesis, "closed-expiry", "shardId-000000000001")).isNotNull();
    }

    /** ListShards calls are counted, every caller's: a test can tell when a job's shard discovery ran. */
    @Test
    void listShardsCallsAreCounted() {
        kinesalite.createStream("listed", 1);
        long before = kinesalite.layer().served("listShards");
        listed("listed");
        listed("listed");
        assertThat(kinesalite.layer().served("listShards")).isEqualTo(before + 2);
    }

    private static List<String> listed(String stream) {
        return kinesis.listShards(b -> b.streamName(stream)).shards().stream()
                .map(Shard::shardId)
                .toList();
    }

    /**
     * "Each shard can support writes up to 1,000 records per second, up to a maximum data write total of
     * 1 MiB per second." (API reference, PutRecords): per shard, by hash key; the records beyond come
     * back with ErrorCode ProvisionedThroughputExceededException, as Kinesis answers them.
     */
    @Test
    void putRecordsTakesAThousandRecordsASecondPerShard() {
        kinesalite.createStream("writes", 2);
        kinesalite.layer().stopClock();
        List<Shard> shards = kinesalite.openShards("writes");
        String first = shards.get(0).hashKeyRange().startingHashKey();
        String other = shards.get(1).hashKeyRange().startingHashKey();

        assertThat(put("writes", records(500, i -> first)).failedRecordCount()).isZero();
        assertThat(put("writes", records(500, i -> i % 2 == 0 ? first : other)).failedRecordCount())
                .isZero();
        PutRecordsResponse third = put("writes", records(500, i -> first));

        assertThat(third.failedRecordCount()).isEqualTo(250);
        List<PutRecordsResultEntry> results = third.records();
        assertThat(results.subList(0, 250)).allSatisfy(r -> {
            assertThat(r.errorCode()).isNull();
            assertThat(r.shardId()).isEqualTo(SHARD_0);
        });
        assertThat(results.subList(250, 500)).allSatisfy(r -> {
            assertThat(r.errorCode()).isEqualTo("ProvisionedThroughputExceededException");
            assertThat(r.errorMessage())
                    .isEqualTo(
                            "Rate exceeded for shard shardId-000000000000 in stream writes under account 000000000000.");
        });
        assertThat(put("writes", records(500, i -> other)).failedRecordCount())
                .as("the other shard has taken 250")
                .isZero();
        assertThat(put("writes", records(1, i -> first)).failedRecordCount()).isEqualTo(1);
        kinesalite.layer().advanceClock(Duration.ofSeconds(1));
        assertThat(put("writes", records(500, i -> first)).failedRecordCount()).isZero();
        assertThat(kinesalite.layer().refused("refusedRecords")).isEqualTo(251);
        assertThat(kinesalite.layer().served("putRecords")).isEqualTo(2250);
    }

    /** The same sentence's 1 MiB a second, data and partition key, for PutRecord: refused whole. */
    @Test
    void putRecordTakesOneMiBASecondPerShard() {
        kinesalite.createStream("mib", 1);
        kinesalite.layer().stopClock();
        kinesis.putRecord(b -> b.streamName("mib").partitionKey("key").data(blob(MIB - 3)));
        assertRateExceeded(
                () -> kinesis.putRecord(
                        b -> b.streamName("mib").partitionKey("k").data(blob(0))),
                "mib",
                SHARD_0);
        kinesalite.layer().advanceClock(Duration.ofSeconds(1));
        assertThat(kinesis.putRecord(b -> b.streamName("mib").partitionKey("k").data(blob(1)))
                        .shardId())
                .isEqualTo(SHARD_0);
        assertThat(kinesalite.layer().refused("refusedPutRecord")).isEqualTo(1);
    }

    /**
     * "To update the shard count, Kinesis Data Streams performs splits or merges on individual shards."
     * (API reference, UpdateShardCount), UNIFORM_SCALING; SplitShard and MergeShards from tests; "you
     * cannot [...] Scale up to more than double your current shard count for a stream".
     */
    @Test
    void shardsSplitMergeAndScaleUniformly() {
        kinesalite.createStream("scaling", 2);
        BigInteger quarter = BigInteger.ONE.shiftLeft(128).divide(BigInteger.valueOf(4));

        List<Shard> four = kinesalite.updateShardCount("scaling", 4);
        assertThat(four)
                .extracting(s -> new BigInteger(s.hashKeyRange().startingHashKey()))
                .containsExactly(
                        BigInteger.ZERO,
                        quarter,
                        quarter.multiply(BigInteger.TWO),
                        quarter.multiply(BigInteger.valueOf(3)));
        assertThat(four).allSatisfy(s -> assertThat(s.parentShardId()).isNotNull());

        List<Shard> three = kinesalite.mergeShards(
                "scaling", four.get(0).shardId(), four.get(1).shardId());
        assertThat(three).hasSize(3);
        assertThat(three.get(0).parentShardId()).isEqualTo(four.get(0).shardId());
        assertThat(three.get(0).adjacentParentShardId()).isEqualTo(four.get(1).shardId());
        assertThat(kinesalite.splitShard("scaling", three.get(0).shardId())).hasSize(4);

        assertThatThrownBy(() -> kinesis.updateShardCount(
                        b -> b.streamName("scaling").targetShardCount(9).scalingType("UNIFORM_SCALING")))
                .isInstanceOf(LimitExceededException.class)
                .hasMessageContaining("over double");
        assertThat(kinesalite.layer().refused("refusedScaling")).isEqualTo(1);

        List<Shard> two = kinesalite.updateShardCount("scaling", 2);
        assertThat(two)
                .extracting(s -> new BigInteger(s.hashKeyRange().startingHashKey()))
                .containsExactly(BigInteger.ZERO, quarter.multiply(BigInteger.TWO));
        assertThat(two.get(1).hashKeyRange().endingHashKey())
                .isEqualTo(
                        BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE).toString());
    }

    private static String iterator(KinesisClient client, String stream, String shardId) {
        return client.getShardIterator(
                        b -> b.streamName(stream).shardId(shardId).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();
    }

    private static PutRecordsResponse put(String stream, List<PutRecordsRequestEntry> records) {
        return kinesis.putRecords(b -> b.streamName(stream).records(records));
    }

    private static List<PutRecordsRequestEntry> records(int count, java.util.function.IntFunction<String> hashKey) {
        List<PutRecordsRequestEntry> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(PutRecordsRequestEntry.builder()
                    .partitionKey("device-" + i)
                    .explicitHashKey(hashKey.apply(i))
                    .data(blob(10))
                    .build());
        }
        return records;
    }

    private static SdkBytes blob(int bytes) {
        return SdkBytes.fromByteArray(new byte[bytes]);
    }

    /** HTTP 400, {@code __type} ProvisionedThroughputExceededException and Kinesis's message. */
    private static void assertRateExceeded(Runnable call, String stream, String shardId) {
        assertThatThrownBy(call::run)
                .isInstanceOf(ProvisionedThroughputExceededException.class)
                .satisfies(e -> {
                    KinesisException k = (KinesisException) e;
                    assertThat(k.statusCode()).isEqualTo(400);
                    assertThat(k.awsErrorDetails().errorCode()).isEqualTo("ProvisionedThroughputExceededException");
                    assertThat(k.awsErrorDetails().errorMessage())
                            .isEqualTo("Rate exceeded for shard " + shardId + " in stream " + stream
                                    + " under account 000000000000.");
                });
    }
}
