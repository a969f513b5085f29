package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableClass;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The fidelity layer against worked examples from DynamoDB's documentation (docs/DESIGN.md quotes
 * each sentence), written from the documentation alone: nothing here calls the job's code. The
 * layer's clock is stopped in every test and moved by hand, so every count is exact however fast
 * the machine is.
 */
class DocumentedLimitsITCase {
    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    /** The delay {@code dynalite.js} gives each table state when started with no flag. */
    private static final Duration TABLE_STATE = Duration.ofMillis(500);
    /** 10 write units an item: a second of 4,000 units is 400 items, 16 calls. */
    private static final int UNITS_PER_ITEM = 10;

    private static Dynalite dynamoDb;
    private static DynamoDbClient client;
    /** A client that does not retry, so that a refusal reaches the test as DynamoDB answered it. */
    private static DynamoDbClient once;

    private static int tables;

    @BeforeAll
    static void emulator() {
        dynamoDb = DYNAMODB.emulator();
        client = DYNAMODB.client();
        once = dynamoDb.syncClientWithoutRetries();
    }

    @AfterAll
    static void closeClient() {
        once.close();
    }

    @BeforeEach
    void stopTheClock() {
        dynamoDb.layer().stopClock();
    }

    @AfterEach
    void clockBack() {
        dynamoDb.layer().reset();
    }

    @Test
    void aNewTableIsCreatingAndRefusesChangesUntilItIsActive() {
        String table = "creating" + (++tables);

        TableStatus created =
                client.createTable(onDemandRequest(table)).tableDescription().tableStatus();

        assertThat(created).isEqualTo(TableStatus.CREATING);
        assertThat(status(table)).isEqualTo(TableStatus.CREATING);
        assertThatThrownBy(() -> once.updateTable(b -> b.tableName(table)
                        .billingMode(BillingMode.PROVISIONED)
                        .provisionedThroughput(p -> p.writeCapacityUnits(5L).readCapacityUnits(5L))))
                .isInstanceOf(ResourceInUseException.class);
        assertThatThrownBy(() -> once.deleteTable(b -> b.tableName(table))).isInstanceOf(ResourceInUseException.class);
        assertThatThrownBy(() -> once.putItem(b -> b.tableName(table).item(Map.of("pk", AttributeValue.fromS("a")))))
                .as("items of a table that is not ACTIVE are not found")
                .isInstanceOf(ResourceNotFoundException.class);

        dynamoDb.layer().advanceClock(TABLE_STATE);
        assertThat(status(table)).isEqualTo(TableStatus.ACTIVE);
        once.putItem(b -> b.tableName(table).item(Map.of("pk", AttributeValue.fromS("a"))));
    }

    @Test
    void anUpdateTakesTimeAndASecondUpdateMeanwhileIsRefused() {
        String table = provisioned(100);

        TableStatus updating = client.updateTable(b -> b.tableName(table)
                        .provisionedThroughput(p -> p.writeCapacityUnits(200L).readCapacityUnits(100L)))
                .tableDescription()
                .tableStatus();

        assertThat(updating).isEqualTo(TableStatus.UPDATING);
        assertThatThrownBy(() -> once.updateTable(b -> b.tableName(table)
                        .provisionedThroughput(p -> p.writeCapacityUnits(300L).readCapacityUnits(100L))))
                .isInstanceOf(ResourceInUseException.class);
        assertThatThrownBy(() -> once.updateTimeToLive(b -> b.tableName(table)
                        .timeToLiveSpecification(t -> t.enabled(true).attributeName("ttl"))))
                .isInstanceOf(ResourceInUseException.class);
        assertThat(dynamoDb.layer().refused("refusedWhileBusy")).isEqualTo(2);

        dynamoDb.layer().advanceClock(TABLE_STATE);
        assertThat(status(table)).isEqualTo(TableStatus.ACTIVE);
        client.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(300L).readCapacityUnits(100L)));
    }

    @Test
    void aNewOnDemandTableAt5000WritesASecondIsThrottled() {
        String table = onDemand();

        long unprocessed = offerUnits(table, 5_000, "a");

        assertThat(unprocessed * UNITS_PER_ITEM)
                .as("4,000 of 5,000 units served")
                .isEqualTo(1_000);
    }

    @Test
    void aNewOnDemandTableAt4000WritesASecondIsNotThrottled() {
        String table = onDemand();

        assertThat(offerUnits(table, 4_000, "a")).isZero();
        dynamoDb.layer().advanceClock(Duration.ofSeconds(1));
        assertThat(offerUnits(table, 4_000, "b"))
                .as("and the next second again")
                .isZero();
    }

    @Test
    void afterThirtyMinutesAt6000ATableServes12000() {
        String table = onDemand();

        assertThat(offerUnits(table, 6_000, "a") * UNITS_PER_ITEM)
                .as("a new table serves 4,000 of 6,000")
                .isEqualTo(2_000);
        dynamoDb.layer().advanceClock(Duration.ofSeconds(1));
        assertThat(offerUnits(table, 6_000, "b") * UNITS_PER_ITEM)
                .as("the second just served is no previous peak yet")
                .isEqualTo(2_000);

        dynamoDb.layer().advanceClock(Duration.ofMinutes(30));
        assertThat(offerUnits(table, 6_000, "c"))
                .as("30 minutes after 4,000 it serves twice that")
                .isZero();
        dynamoDb.layer().advanceClock(Duration.ofSeconds(1));
        assertThat(offerUnits(table, 12_000, "d") * UNITS_PER_ITEM)
                .as("but not yet twice 6,000")
                .isEqualTo(4_000);

        dynamoDb.layer().advanceClock(Duration.ofMinutes(30));
        assertThat(offerUnits(table, 12_000, "e"))
                .as("30 minutes after 6,000: 12,000")
                .isZero();
    }

    @Test
    void onePartitionKeyAt1500WritesASecondIsThrottledOnATableWith40000Wcu() {
        String table = provisionedWithSortKey(40_000);

        long hot = IntStream.range(0, 60)
                .mapToLong(call -> unprocessed(
                        table,
                        writes(
                                25,
                                i -> Map.of(
                                        "pk", AttributeValue.fromS("hot"),
                                        "sk", AttributeValue.fromS("s" + (call * 25 + i))))))
                .sum();
        long cold = IntStream.range(0, 60)
                .mapToLong(call -> unprocessed(
                        table,
                        writes(
                                25,
                                i -> Map.of(
                                        "pk", AttributeValue.fromS("cold" + (call * 25 + i)),
                                        "sk", AttributeValue.fromS("s")))))
                .sum();

        assertThat(hot).as("one key serves 1,000 of 1,500 writes").isEqualTo(500);
        assertThat(cold)
                .as("1,500 writes spread over keys all fit the table's 40,000")
                .isZero();
        assertThat(dynamoDb.layer().refused("throttledByPartition")).isEqualTo(500);
    }

    @Test
    void aProvisionedTableStartsWithOneSecondOfCapacityAndSavesUpAtMost300Seconds() {
        String table = provisioned(10);

        assertThat(unprocessed(table, smallWrites("a", 25)))
                .as("a new table: one second, 10 of 25")
                .isEqualTo(15);

        dynamoDb.layer().advanceClock(Duration.ofSeconds(600));
        long served = 0;
        for (int call = 0; call < 130; call++) {
            served += 25 - unprocessed(table, smallWrites("b" + call + "-", 25));
        }
        assertThat(served).as("600 s idle save up 300 s of 10 WCU").isEqualTo(3_000);
    }

    @Test
    void aTableSwitchesToOnDemandFourTimesInA24HourRollingWindow() {
        String table = provisioned(5);
        for (int i = 0; i < 4; i++) {
            switchTo(table, BillingMode.PAY_PER_REQUEST);
            switchTo(table, BillingMode.PROVISIONED); // on-demand -> provisioned: at any time
        }

        assertThatThrownBy(() -> switchTo(table, BillingMode.PAY_PER_REQUEST))
                .isInstanceOf(LimitExceededException.class);
        dynamoDb.layer().advanceClock(Duration.ofHours(24));
        switchTo(table, BillingMode.PAY_PER_REQUEST);
        assertThat(dynamoDb.layer().refused("refusedSwitches")).isEqualTo(1);
    }

    @Test
    void aTableChangesItsClassTwiceIn30Days() {
        String table = onDemand();
        changeClass(table, TableClass.STANDARD_INFREQUENT_ACCESS);
        changeClass(table, TableClass.STANDARD);

        assertThatThrownBy(() -> changeClass(table, TableClass.STANDARD_INFREQUENT_ACCESS))
                .isInstanceOf(LimitExceededException.class);
        dynamoDb.layer().advanceClock(Duration.ofDays(30));
        changeClass(table, TableClass.STANDARD_INFREQUENT_ACCESS);
    }

    @Test
    void aTableDecreases4TimesInTheFirstHourAndOnceInEachLaterHourOfAUtcDay() {
        String table = provisioned(1_000);
        startOfAUtcDay();
        long units = 1_000;
        int accepted = 0;
        for (int hour = 0; hour < 24; hour++) {
            for (int attempt = 0; attempt < 6; attempt++) {
                long lower = --units;
                try {
                    once.updateTable(b -> b.tableName(table)
                            .provisionedThroughput(
                                    p -> p.writeCapacityUnits(lower).readCapacityUnits(5L)));
                    accepted++;
                } catch (LimitExceededException refused) {
                    units++;
                }
                dynamoDb.layer().advanceClock(Duration.ofMinutes(1)); // past UPDATING
            }
            dynamoDb.layer().advanceClock(Duration.ofMinutes(54));
        }

        assertThat(accepted).as("4 + 23 decreases in a UTC day").isEqualTo(27);
        dynamoDb.layer().advanceClock(Duration.ofHours(1)); // the next UTC day
        client.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(1L).readCapacityUnits(5L)));
    }

    @Test
    void aTableSwitchedToOnDemandStartsFromHalfItsProvisionedCapacity() {
        String table = provisioned(20_000);
        switchTo(table, BillingMode.PAY_PER_REQUEST);

        assertThat(offerUnits(table, 20_000, "a"))
                .as("previous peak 10,000: twice that")
                .isZero();
        dynamoDb.layer().advanceClock(Duration.ofSeconds(1));
        assertThat(offerUnits(table, 25_000, "b") * UNITS_PER_ITEM).isEqualTo(5_000);
    }

    /** Offers {@code units} in 10-unit items, one key each, in calls of 25; how many items came back. */
    private static long offerUnits(String table, int units, String prefix) {
        int items = units / UNITS_PER_ITEM;
        long unprocessed = 0;
        for (int first = 0; first < items; first += 25) {
            int start = first;
            unprocessed += unprocessed(
                    table,
                    writes(
                            Math.min(25, items - first),
                            i -> Map.of(
                                    "pk", AttributeValue.fromS(prefix + (start + i)),
                                    "blob", AttributeValue.fromS("x".repeat(UNITS_PER_ITEM * 1024 - 64)))));
        }
        return unprocessed;
    }

    private static List<WriteRequest> smallWrites(String prefix, int n) {
        return writes(n, i -> Map.of("pk", AttributeValue.fromS(prefix + i)));
    }

    private static List<WriteRequest> writes(int n, java.util.function.IntFunction<Map<String, AttributeValue>> item) {
        return IntStream.range(0, n)
                .mapToObj(i -> WriteRequest.builder()
                        .putRequest(PutRequest.builder().item(item.apply(i)).build())
                        .build())
                .toList();
    }

    private static long unprocessed(String table, List<WriteRequest> batch) {
        try {
            BatchWriteItemResponse response = once.batchWriteItem(b -> b.requestItems(Map.of(table, batch)));
            return response.unprocessedItems().getOrDefault(table, List.of()).size();
        } catch (ProvisionedThroughputExceededException throttled) {
            return batch.size();
        }
    }

    private static void switchTo(String table, BillingMode mode) {
        once.updateTable(b -> {
            b.tableName(table).billingMode(mode);
            if (mode == BillingMode.PROVISIONED) {
                b.provisionedThroughput(p -> p.writeCapacityUnits(5L).readCapacityUnits(5L));
            }
        });
        dynamoDb.layer().advanceClock(TABLE_STATE);
    }

    private static void changeClass(String table, TableClass tableClass) {
        once.updateTable(b -> b.tableName(table).tableClass(tableClass));
        dynamoDb.layer().advanceClock(TABLE_STATE);
    }

    private static TableStatus status(String table) {
        return client.describeTable(b -> b.tableName(table)).table().tableStatus();
    }

    private static String onDemand() {
        String table = "ondemand" + (++tables);
        return active(onDemandRequest(table));
    }

    private static String provisioned(long writeUnits) {
        String table = "provisioned" + (++tables);
        return active(onDemandRequest(table).toBuilder()
                .billingMode(BillingMode.PROVISIONED)
                .provisionedThroughput(p -> p.writeCapacityUnits(writeUnits).readCapacityUnits(5L))
                .build());
    }

    private static String provisionedWithSortKey(long writeUnits) {
        String table = "sorted" + (++tables);
        return active(CreateTableRequest.builder()
                .tableName(table)
                .keySchema(
                        KeySchemaElement.builder()
                                .attributeName("pk")
                                .keyType(KeyType.HASH)
                                .build(),
                        KeySchemaElement.builder()
                                .attributeName("sk")
                                .keyType(KeyType.RANGE)
                                .build())
                .attributeDefinitions(
                        AttributeDefinition.builder()
                                .attributeName("pk")
                                .attributeType(ScalarAttributeType.S)
                                .build(),
                        AttributeDefinition.builder()
                                .attributeName("sk")
                                .attributeType(ScalarAttributeType.S)
                                .build())
                .billingMode(BillingMode.PROVISIONED)
                .provisionedThroughput(p -> p.writeCapacityUnits(writeUnits).readCapacityUnits(5L))
                .build());
    }

    /** Creates the table and moves the clock past CREATING: its capacity starts now. */
    private static String active(CreateTableRequest request) {
        client.createTable(request);
        dynamoDb.layer().advanceClock(TABLE_STATE);
        assertThat(status(request.tableName())).isEqualTo(TableStatus.ACTIVE);
        return request.tableName();
    }

    private static CreateTableRequest onDemandRequest(String table) {
        return DynaliteITCase.createTableRequest(table);
    }

    /** Moves the layer's clock to just after 00:00 UTC of a coming day. */
    private static void startOfAUtcDay() {
        long day = Duration.ofDays(1).toMillis();
        long layerNow = dynamoDb.layer().now().toEpochMilli();
        long target = (layerNow / day + 1) * day + Duration.ofSeconds(1).toMillis();
        dynamoDb.layer().advanceClock(Duration.ofMillis(target - layerNow));
    }
}
