package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.emulators.FidelityLayer.Limit;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.TableClass;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/** The fidelity layer in front of dynalite: what it fills in and the limits it enforces, as DynamoDB has them. */
class FidelityLayerITCase {
    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;
    private static DynamoDbClient client;
    /** A client that does not retry, so that a refusal reaches the test as DynamoDB answered it. */
    private static DynamoDbClient once;

    private static final Duration TABLE_STATE = Duration.ofMillis(500);

    private static int tables;

    @BeforeAll
    static void emulator() {
        dynamoDb = DYNAMODB.emulator();
        client = DYNAMODB.client();
        once = DynamoDbClient.builder()
                .endpointOverride(dynamoDb.endpoint())
                .region(Dynalite.REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryPolicy(RetryPolicy.none()))
                .build();
    }

    @AfterAll
    static void closeClient() {
        once.close();
    }

    @AfterEach
    void limitsBack() {
        dynamoDb.layer().reset();
    }

    @Test
    void startsWithEveryLimitOn() {
        assertThat(dynamoDb.layer().limits()).isEqualTo(EnumSet.allOf(Limit.class));
    }

    @Test
    void writesBeyondProvisionedCapacityComeBackUnprocessedThenFailAsThrottled() {
        dynamoDb.layer().burst(Duration.ofSeconds(2));
        dynamoDb.layer().stopClock(); // the counts below hold however fast the machine is
        String table = provisioned(5);

        // 5 WCU, a new table: one second's worth, 5 small items of a full batch fit, 20 come back.
        BatchWriteItemResponse first = client.batchWriteItem(b -> b.requestItems(Map.of(table, items("a", 25))));

        assertThat(first.unprocessedItems().get(table)).hasSize(20);
        assertThat(client.scan(b -> b.tableName(table)).count()).isEqualTo(5);
        // An item of 11 KB costs 11 WCU: more than the table ever saves up, so the call fails and writes nothing.
        dynamoDb.layer().advanceClock(Duration.ofSeconds(10));
        assertThatThrownBy(() -> once.batchWriteItem(b -> b.requestItems(Map.of(table, List.of(large("b"))))))
                .isInstanceOf(ProvisionedThroughputExceededException.class);
        assertThat(dynamoDb.layer().refused("throttledCalls")).isEqualTo(1);

        client.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(1000L).readCapacityUnits(5L)));
        dynamoDb.layer().advanceClock(Duration.ofSeconds(1)); // UPDATING, then the new rate
        assertThat(client.batchWriteItem(b -> b.requestItems(Map.of(table, List.of(large("c")))))
                        .unprocessedItems())
                .isEmpty();
    }

    @Test
    void withTheThroughputLimitOffNothingIsThrottled() {
        dynamoDb.layer().burst(Duration.ofSeconds(2));
        dynamoDb.layer().limits(EnumSet.complementOf(EnumSet.of(Limit.THROUGHPUT)));
        String table = provisioned(1);

        assertThat(client.batchWriteItem(b -> b.requestItems(Map.of(table, items("a", 25))))
                        .unprocessedItems())
                .isEmpty();
        assertThat(dynamoDb.layer().refused("throttledWrites")).isZero();
    }

    @Test
    void decreasesFollowTheDailyQuotaThenOneAnHour() {
        startOfAUtcDay(); // the quota counts per UTC day: the test must not straddle midnight
        String table = provisioned(5);
        for (long units = 4; units >= 1; units--) {
            long write = units;
            client.updateTable(b -> b.tableName(table)
                    .provisionedThroughput(p -> p.writeCapacityUnits(write).readCapacityUnits(5L)));
            pastUpdating();
        }
        assertThatThrownBy(() -> client.updateTable(b -> b.tableName(table)
                        .provisionedThroughput(p -> p.writeCapacityUnits(1L).readCapacityUnits(1L))))
                .isInstanceOf(LimitExceededException.class)
                .hasMessageContaining("Number of decreases today: 4");
        client.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(50L).readCapacityUnits(5L)));
        pastUpdating();

        ProvisionedThroughputDescription throughput =
                client.describeTable(b -> b.tableName(table)).table().provisionedThroughput();
        assertThat(throughput.numberOfDecreasesToday()).isEqualTo(4);
        assertThat(throughput.writeCapacityUnits()).isEqualTo(50L);
        assertThat(dynamoDb.layer().refused("refusedDecreases")).isEqualTo(1);

        dynamoDb.layer().advanceClock(Duration.ofMinutes(61)); // then one an hour
        client.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(10L).readCapacityUnits(5L)));
        pastUpdating();
        assertThatThrownBy(() -> client.updateTable(b -> b.tableName(table)
                        .provisionedThroughput(p -> p.writeCapacityUnits(9L).readCapacityUnits(5L))))
                .isInstanceOf(LimitExceededException.class);
        assertThat(client.describeTable(b -> b.tableName(table))
                        .table()
                        .provisionedThroughput()
                        .numberOfDecreasesToday())
                .isEqualTo(5);
    }

    @Test
    void lastDecreaseDateTimeIsKeptDaysAfterTheDecrease() {
        String table = provisioned(5);
        dynamoDb.layer().stopClock();
        Instant decreased = dynamoDb.layer().now();
        client.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(4L).readCapacityUnits(5L)));
        pastUpdating();

        dynamoDb.layer().advanceClock(Duration.ofDays(3));
        client.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(6L).readCapacityUnits(5L)));
        pastUpdating();

        ProvisionedThroughputDescription throughput =
                client.describeTable(b -> b.tableName(table)).table().provisionedThroughput();
        assertThat(throughput.lastDecreaseDateTime()).isEqualTo(decreased);
        assertThat(throughput.numberOfDecreasesToday()).isZero();
        assertThat(throughput.writeCapacityUnits()).isEqualTo(6L);
    }

    @Test
    void timeToLiveChangesOncePerHour() {
        String table = onDemand();
        assertThat(client.describeTimeToLive(b -> b.tableName(table))
                        .timeToLiveDescription()
                        .timeToLiveStatus())
                .isEqualTo(TimeToLiveStatus.DISABLED);

        client.updateTimeToLive(b ->
                b.tableName(table).timeToLiveSpecification(t -> t.enabled(true).attributeName("ttl")));

        assertThat(client.describeTimeToLive(b -> b.tableName(table)).timeToLiveDescription())
                .satisfies(ttl -> assertThat(ttl.timeToLiveStatus()).isEqualTo(TimeToLiveStatus.ENABLED))
                .satisfies(ttl -> assertThat(ttl.attributeName()).isEqualTo("ttl"));
        assertThatThrownBy(() -> client.updateTimeToLive(b -> b.tableName(table)
                        .timeToLiveSpecification(t -> t.enabled(true).attributeName("ttl"))))
                .hasMessageContaining("already enabled");
        assertThatThrownBy(() -> client.updateTimeToLive(b -> b.tableName(table)
                        .timeToLiveSpecification(t -> t.enabled(false).attributeName("ttl"))))
                .isInstanceOf(DynamoDbException.class);
        assertThat(dynamoDb.layer().refused("refusedTtlChanges")).isEqualTo(1);

        dynamoDb.layer().advanceClock(Duration.ofMinutes(61));
        client.updateTimeToLive(b ->
                b.tableName(table).timeToLiveSpecification(t -> t.enabled(false).attributeName("ttl")));
        assertThat(client.describeTimeToLive(b -> b.tableName(table))
                        .timeToLiveDescription()
                        .timeToLiveStatus())
                .isEqualTo(TimeToLiveStatus.DISABLED);
    }

    @Test
    void keepsTheOptionsGivenAtCreationAndEnforcesDeletionProtection() {
        String table = "options" + (++tables);
        client.createTable(DynaliteITCase.createTableRequest(table).toBuilder()
                .tags(Tag.builder().key("period-tables:role").value("current").build())
                .deletionProtectionEnabled(true)
                .tableClass(TableClass.STANDARD_INFREQUENT_ACCESS)
                .sseSpecification(s -> s.enabled(true))
                .onDemandThroughput(o -> o.maxWriteRequestUnits(100L).maxReadRequestUnits(200L))
                .build());
        active(table);

        TableDescription description =
                client.describeTable(b -> b.tableName(table)).table();
        assertThat(description.deletionProtectionEnabled()).isTrue();
        assertThat(description.tableClassSummary().tableClass()).isEqualTo(TableClass.STANDARD_INFREQUENT_ACCESS);
        assertThat(description.sseDescription()).isNotNull();
        assertThat(description.onDemandThroughput().maxWriteRequestUnits()).isEqualTo(100L);
        assertThat(client.listTagsOfResource(b -> b.resourceArn(description.tableArn()))
                        .tags())
                .containsExactly(
                        Tag.builder().key("period-tables:role").value("current").build());

        assertThatThrownBy(() -> client.deleteTable(b -> b.tableName(table)))
                .hasMessageContaining("protected against deletion");
        client.updateTable(b -> b.tableName(table).deletionProtectionEnabled(false));
        client.deleteTable(b -> b.tableName(table));
    }

    @Test
    void capsABatchAt25WritesAcrossTablesAndCountsItemSizeInUtf8() {
        String one = onDemand();
        String two = onDemand();

        assertThatThrownBy(() ->
                        client.batchWriteItem(b -> b.requestItems(Map.of(one, items("a", 13), two, items("b", 13)))))
                .hasMessageContaining("Too many items");
        assertThat(client.scan(b -> b.tableName(one)).count()
                        + client.scan(b -> b.tableName(two)).count())
                .isZero();

        // 140,000 euro signs: 140,000 UTF-16 units, 420,000 UTF-8 bytes, above DynamoDB's 400 KB
        assertThatThrownBy(() -> client.putItem(b -> b.tableName(one)
                        .item(Map.of(
                                "pk",
                                AttributeValue.fromS("euro"),
                                "blob",
                                AttributeValue.fromS("€".repeat(140_000))))))
                .hasMessageContaining("Item size has exceeded");
        assertThatThrownBy(() -> client.putItem(b -> b.tableName(one)
                        .item(Map.of("pk", AttributeValue.fromS("empty"), "", AttributeValue.fromS("x")))))
                .hasMessageContaining("attribute name cannot be empty");
        assertThat(dynamoDb.layer().refused("refusedBatches")).isEqualTo(1);
        assertThat(dynamoDb.layer().refused("refusedItems")).isEqualTo(1);
    }

    @Test
    void reportsItemCountAndSize() {
        String table = onDemand();
        client.batchWriteItem(b -> b.requestItems(Map.of(table, items("a", 20))));

        TableDescription description =
                client.describeTable(b -> b.tableName(table)).table();
        assertThat(description.itemCount()).isEqualTo(20L);
        assertThat(description.tableSizeBytes()).isPositive();
    }

    @Test
    void aNewOnDemandTableWrites4000UnitsASecondUntilWarmed() {
        String cold = onDemand();
        String warm = "warm" + (++tables);
        // the request as DynamoDB's JSON protocol has it (written when the SDK had no WarmThroughput)
        String created = raw(
                "CreateTable",
                "{\"TableName\":\"" + warm + "\",\"BillingMode\":\"PAY_PER_REQUEST\","
                        + "\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],"
                        + "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}],"
                        + "\"WarmThroughput\":{\"WriteUnitsPerSecond\":40000,\"ReadUnitsPerSecond\":12000}}");
        assertThat(created).contains("\"WriteUnitsPerSecond\":40000");
        active(warm);

        // 16 KB items cost 16 units: 400 units a call. With the layer's clock stopped, every call
        // falls in the tables' first second, however slow the machine: the cold table serves 10
        // calls (4,000 units) of 100, the warm one all 40 (16,000 of its 40,000).
        dynamoDb.layer().stopClock();
        long unprocessedCold = writeCalls(cold, 100);
        long unprocessedWarm = writeCalls(warm, 40);
        dynamoDb.layer().startClock();

        assertThat(unprocessedCold)
                .as("a cold table serves 4,000 units in a second: 250 of 100 calls' 2,500 items")
                .isEqualTo(2250);
        assertThat(unprocessedWarm).as("WarmThroughput 40,000 serves it").isZero();
        active(warm); // its warm throughput reports ACTIVE an update delay after the table
        assertThat(raw("DescribeTable", "{\"TableName\":\"" + warm + "\"}"))
                .contains("\"WarmThroughput\":{\"Status\":\"ACTIVE\",\"WriteUnitsPerSecond\":40000");
    }

    @Test
    void aWarmThroughputChangeIsUpdatingForTheUpdateDelayAndNeverDecreases() {
        String table = onDemand();
        dynamoDb.layer().stopClock();
        try {
            client.updateTable(b -> b.tableName(table).warmThroughput(w -> w.writeUnitsPerSecond(20_000L)));
            TableDescription updating =
                    client.describeTable(b -> b.tableName(table)).table();
            assertThat(updating.tableStatus()).as("the table itself").isEqualTo(TableStatus.ACTIVE);
            assertThat(updating.warmThroughput().status()).isEqualTo(TableStatus.UPDATING);
            assertThat(updating.warmThroughput().writeUnitsPerSecond()).isEqualTo(20_000L);

            active(table);
            assertThat(client.describeTable(b -> b.tableName(table))
                            .table()
                            .warmThroughput()
                            .status())
                    .isEqualTo(TableStatus.ACTIVE);

            assertThatThrownBy(() -> client.updateTable(
                            b -> b.tableName(table).warmThroughput(w -> w.writeUnitsPerSecond(10_000L))))
                    .isInstanceOfSatisfying(
                            DynamoDbException.class,
                            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"))
                    .hasMessageContaining("cannot be decreased");
            assertThat(client.describeTable(b -> b.tableName(table))
                            .table()
                            .warmThroughput()
                            .writeUnitsPerSecond())
                    .isEqualTo(20_000L);
        } finally {
            dynamoDb.layer().startClock();
        }
    }

    @Test
    void refusesTablesBeyondTheAccountQuota() {
        int existing = client.listTables().tableNames().size();
        dynamoDb.layer().maxTables(existing + 1);
        onDemand();

        assertThatThrownBy(FidelityLayerITCase::onDemand).isInstanceOf(LimitExceededException.class);
        assertThat(dynamoDb.layer().refused("refusedTables")).isEqualTo(1);
    }

    /** A DynamoDB call as JSON (the emulator checks that a request is signed, not the signature). */
    private static String raw(String operation, String json) {
        HttpRequest request = HttpRequest.newBuilder(dynamoDb.endpoint())
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", "DynamoDB_20120810." + operation)
                .header("X-Amz-Date", "20260101T000000Z")
                .header(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, "
                                + "SignedHeaders=host, Signature=0")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        try {
            HttpResponse<String> response =
                    HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return response.body();
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(operation + " failed", e);
        }
    }

    private static long writeCalls(String table, int calls) {
        long unprocessed = 0;
        for (int call = 0; call < calls; call++) {
            List<WriteRequest> batch = IntStream.range(0, 25)
                    .mapToObj(i -> WriteRequest.builder()
                            .putRequest(PutRequest.builder()
                                    .item(Map.of(
                                            "pk",
                                            AttributeValue.fromS("k" + i),
                                            "blob",
                                            AttributeValue.fromS("x".repeat(16 * 1024 - 16))))
                                    .build())
                            .build())
                    .toList();
            try {
                BatchWriteItemResponse response = once.batchWriteItem(b -> b.requestItems(Map.of(table, batch)));
                unprocessed += response.unprocessedItems()
                        .getOrDefault(table, List.of())
                        .size();
            } catch (ProvisionedThroughputExceededException throttled) {
                unprocessed += batch.size();
            }
        }
        return unprocessed;
    }

    /** Moves the layer's clock to 01:00 UTC of a coming day. */
    private static void startOfAUtcDay() {
        long day = Duration.ofDays(1).toMillis();
        long layerNow =
                System.currentTimeMillis() + dynamoDb.layer().clockOffset().toMillis();
        long target = (layerNow / day + 1) * day + Duration.ofHours(1).toMillis();
        dynamoDb.layer().advanceClock(Duration.ofMillis(target - layerNow));
    }

    private static String provisioned(long writeUnits) {
        String table = "throughput" + (++tables);
        client.createTable(DynaliteITCase.createTableRequest(table).toBuilder()
                .billingMode(BillingMode.PROVISIONED)
                .provisionedThroughput(p -> p.writeCapacityUnits(writeUnits).readCapacityUnits(5L))
                .build());
        return active(table);
    }

    private static String onDemand() {
        String table = "ondemand" + (++tables);
        CreateTableRequest request = DynaliteITCase.createTableRequest(table);
        client.createTable(request);
        return active(table);
    }

    /** Moves the layer's clock past the table's CREATING (500 ms, as the layer starts). */
    private static String active(String table) {
        dynamoDb.layer().advanceClock(TABLE_STATE);
        return table;
    }

    private static void pastUpdating() {
        dynamoDb.layer().advanceClock(TABLE_STATE);
    }

    private static List<WriteRequest> items(String prefix, int n) {
        return IntStream.range(0, n)
                .mapToObj(i -> WriteRequest.builder()
                        .putRequest(PutRequest.builder()
                                .item(Map.of("pk", AttributeValue.fromS(prefix + i)))
                                .build())
                        .build())
                .toList();
    }

    private static WriteRequest large(String key) {
        return WriteRequest.builder()
                .putRequest(PutRequest.builder()
                        .item(Map.of(
                                "pk", AttributeValue.fromS(key), "blob", AttributeValue.fromS("x".repeat(11 * 1024))))
                        .build())
                .build();
    }
}
