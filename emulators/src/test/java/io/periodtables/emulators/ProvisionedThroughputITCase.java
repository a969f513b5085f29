package io.periodtables.emulators;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link DynamoDbFaults#enforceThroughput}: per-table write capacity and the decrease quota, as DynamoDB has them. */
class ProvisionedThroughputITCase {
    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMODB = new DynamoDbLocalExtension();
    private static DynamoDbLocal local;
    private static DynamoDbClient plain;
    private static DynamoDbClient sync;
    private static int tables;
    private String table;

    @BeforeAll
    static void startDynamoDb() {
        local = DYNAMODB.local();
        plain = local.syncClient();
        sync = FaultyClients.sync(local);
    }

    @AfterAll
    static void stopDynamoDb() {
        sync.close();
        plain.close();
    }

    @BeforeEach
    void provisionedTable() {
        DynamoDbFaults.reset();
        DynamoDbFaults.enforceThroughput(Duration.ofSeconds(2));
        table = "throughput" + (++tables);
        sync.createTable(DynamoDbLocalITCase.createTableRequest(table).toBuilder().billingMode("PROVISIONED")
                .provisionedThroughput(p -> p.writeCapacityUnits(5L).readCapacityUnits(5L)).build());
    }

    @Test
    void writesBeyondTheTablesCapacityComeBackUnprocessedThenFailAsThrottled() {
        // 5 WCU with 2 s of burst: 10 small items fit, the other 15 of a full batch come back.
        BatchWriteItemResponse first = sync.batchWriteItem(b -> b.requestItems(Map.of(table, items("a", 25))));

        assertThat(first.unprocessedItems().get(table)).hasSize(15);
        assertThat(plain.scan(b -> b.tableName(table)).count()).isEqualTo(10);
        // An item of 11 KB costs 11 WCU: more than the table can ever save up, so nothing is written.
        assertThatThrownBy(() -> sync.batchWriteItem(b -> b.requestItems(Map.of(table, List.of(large("b"))))))
                .isInstanceOf(ProvisionedThroughputExceededException.class);
        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED)).isEqualTo(1);

        sync.updateTable(b -> b.tableName(table).provisionedThroughput(p -> p.writeCapacityUnits(1000L).readCapacityUnits(5L)));
        assertThat(sync.batchWriteItem(b -> b.requestItems(Map.of(table, List.of(large("c"))))).unprocessedItems()).isEmpty();
    }

    @Test
    void decreasesFollowTheDailyQuotaAndDescribeTableReportsThem() {
        for (long units = 4; units >= 1; units--) {
            long write = units;
            sync.updateTable(b -> b.tableName(table).provisionedThroughput(p -> p.writeCapacityUnits(write).readCapacityUnits(5L)));
        }
        assertThatThrownBy(() -> sync.updateTable(b -> b.tableName(table)
                .provisionedThroughput(p -> p.writeCapacityUnits(1L).readCapacityUnits(1L))))
                .isInstanceOf(LimitExceededException.class);
        sync.updateTable(b -> b.tableName(table).provisionedThroughput(p -> p.writeCapacityUnits(50L).readCapacityUnits(5L)));

        ProvisionedThroughputDescription throughput = sync.describeTable(b -> b.tableName(table)).table().provisionedThroughput();
        assertThat(throughput.numberOfDecreasesToday()).isEqualTo(4);
        assertThat(throughput.lastDecreaseDateTime()).isNotNull();
        assertThat(throughput.lastIncreaseDateTime()).isAfterOrEqualTo(throughput.lastDecreaseDateTime());
    }

    private static WriteRequest large(String key) {
        return WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of("pk", AttributeValue.fromS(key),
                "blob", AttributeValue.fromS("x".repeat(11 * 1024)))).build()).build();
    }

    private static List<WriteRequest> items(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> WriteRequest.builder().putRequest(PutRequest.builder()
                .item(Map.of("pk", AttributeValue.fromS(prefix + i))).build()).build()).toList();
    }
}
