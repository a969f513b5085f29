package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Item sizes in the fidelity layer as DynamoDB's "Item sizes and formats" page states them
 * (docs/DESIGN.md quotes it): what fits in 400 KB and what a table's size adds up to.
 */
class ItemSizesITCase {
    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final int MAX_ITEM_BYTES = 400 * 1024;
    /** A 1 followed by 36 zeros: one significant digit, 2 bytes; 20 if its trailing zeros counted. */
    private static final String ROUND = "1" + "0".repeat(36);

    private static Dynalite dynamoDb;
    private static DynamoDbClient client;
    private static int tables;

    @BeforeAll
    static void emulator() {
        dynamoDb = DYNAMODB.emulator();
        client = DYNAMODB.client();
    }

    @AfterEach
    void layerBack() {
        dynamoDb.layer().reset();
    }

    @Test
    void aNumberIsItsSignificantDigitsWithoutTrailingZeros() {
        String table = table();
        // pk "n" (2 + 1 bytes), "l" a list of 5,000 such numbers (1 + 3 + 5,000 x (1 + 2) bytes), "s" the rest
        int listed = 5_000;
        int rest = MAX_ITEM_BYTES - 3 - (1 + 3 + listed * 3) - 1;
        Map<String, AttributeValue> item = Map.of(
                "pk", AttributeValue.fromS("n"),
                "l", AttributeValue.fromL(Collections.nCopies(listed, AttributeValue.fromN(ROUND))),
                "s", AttributeValue.fromS("x".repeat(rest)));

        client.putItem(b -> b.tableName(table).item(item));

        Map<String, AttributeValue> read = client.getItem(
                        b -> b.tableName(table).key(Map.of("pk", AttributeValue.fromS("n"))))
                .item();
        assertThat(read.get("l").l()).hasSize(listed);
        assertThat(read.get("s").s()).hasSize(rest);
        assertThat(dynamoDb.layer().refused("refusedItems")).isZero();
    }

    @Test
    void aTableSizeCountsNumbersByDigitPairsFromTheDecimalPointAndTheirSign() {
        String table = table();
        client.putItem(b -> b.tableName(table)
                .item(Map.of(
                        "pk", AttributeValue.fromS("n1"), // 2 + 2
                        "a", AttributeValue.fromN("-1.5"), // 1 + (01.50: 2 pairs) + 1 + 1 for the sign
                        "b", AttributeValue.fromN("1200"), // 1 + (12: 1 pair) + 1
                        "c", AttributeValue.fromN("0.012")))); // 1 + (.0120: 2 pairs) + 1

        assertThat(client.describeTable(b -> b.tableName(table)).table().tableSizeBytes())
                .isEqualTo(4 + 5 + 3 + 4);
    }

    @Test
    void anEmptyAttributeNameInAMapInAListIsRefused() {
        String table = table();
        AttributeValue nested =
                AttributeValue.fromL(List.of(AttributeValue.fromM(Map.of("", AttributeValue.fromS("x")))));

        assertThatThrownBy(() -> client.putItem(
                        b -> b.tableName(table).item(Map.of("pk", AttributeValue.fromS("e"), "l", nested))))
                .hasMessageContaining("attribute name cannot be empty");
        assertThat(client.scan(b -> b.tableName(table)).count()).isZero();
    }

    private static String table() {
        String table = "sizes" + (++tables);
        client.createTable(DynaliteITCase.createTableRequest(table));
        dynamoDb.layer().advanceClock(Duration.ofMillis(500)); // past CREATING
        return table;
    }
}
