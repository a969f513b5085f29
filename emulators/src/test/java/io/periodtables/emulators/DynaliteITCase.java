package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

class DynaliteITCase {

    @Test
    void storesAndReturnsAnItem() {
        try (Dynalite local = Dynalite.start();
                DynamoDbClient client = local.syncClient()) {
            createTable(client, "readings");
            client.putItem(b -> b.tableName("readings").item(item("dev-1", "42")));

            Map<String, AttributeValue> read = client.getItem(b -> b.tableName("readings")
                            .key(Map.of("pk", AttributeValue.fromS("dev-1")))
                            .consistentRead(true))
                    .item();

            assertThat(read).containsEntry("value", AttributeValue.fromN("42"));
        }
    }

    @Test
    void listensOnLoopbackOnly() {
        assertThat(ListeningSockets.available())
                .as("reads the kernel socket tables, /proc/net/tcp (Linux)")
                .isTrue();
        try (Dynalite local = Dynalite.start()) {
            assertThat(local.endpoint().getHost()).isEqualTo("127.0.0.1");
            assertThat(ListeningSockets.addressesListeningOn(local.port()))
                    .isNotEmpty()
                    .allSatisfy(address -> assertThat(address.getHostAddress()).isEqualTo("127.0.0.1"));
        }
    }

    @Test
    void keepsInMemoryDataAcrossAnOutageOnTheSamePort() {
        try (Dynalite local = Dynalite.start();
                DynamoDbClient client = local.syncClient()) {
            createTable(client, "readings");
            client.putItem(b -> b.tableName("readings").item(item("dev-1", "7")));

            local.stop();
            assertThat(local.isListening()).isFalse();
            assertThatThrownBy(() -> new Socket(Dynalite.HOST, local.port()).close())
                    .isInstanceOf(ConnectException.class);

            local.restart();
            assertThat(client.getItem(b -> b.tableName("readings").key(Map.of("pk", AttributeValue.fromS("dev-1"))))
                            .item())
                    .containsEntry("value", AttributeValue.fromN("7"));
        }
    }

    @Test
    void keepsPersistentDataAcrossRestarts(@TempDir Path dataDir) {
        try (Dynalite local = Dynalite.start(dataDir);
                DynamoDbClient client = local.syncClient()) {
            createTable(client, "readings");
            client.putItem(b -> b.tableName("readings").item(item("dev-1", "9")));
        }
        try (Dynalite local = Dynalite.start(dataDir);
                DynamoDbClient client = local.syncClient()) {
            assertThat(client.getItem(b -> b.tableName("readings").key(Map.of("pk", AttributeValue.fromS("dev-1"))))
                            .item())
                    .containsEntry("value", AttributeValue.fromN("9"));
        }
    }

    @Test
    void keepsTheDecreaseQuotaAcrossRestarts(@TempDir Path dataDir) {
        try (Dynalite local = Dynalite.start(dataDir);
                DynamoDbClient client = local.syncClient()) {
            client.createTable(createTableRequest("quota").toBuilder()
                    .billingMode(BillingMode.PROVISIONED)
                    .provisionedThroughput(p -> p.writeCapacityUnits(10L).readCapacityUnits(10L))
                    .build());
            TestTables.awaitActive(client, "quota");
            client.updateTable(b -> b.tableName("quota")
                    .provisionedThroughput(p -> p.writeCapacityUnits(5L).readCapacityUnits(10L)));
        }
        try (Dynalite local = Dynalite.start(dataDir);
                DynamoDbClient client = local.syncClient()) {
            assertThat(client.describeTable(b -> b.tableName("quota"))
                            .table()
                            .provisionedThroughput()
                            .numberOfDecreasesToday())
                    .isEqualTo(1);
        }
    }

    @Test
    void closeIsIdempotent() {
        Dynalite local = Dynalite.start();
        local.close();
        local.close();
        assertThat(local.isListening()).isFalse();
    }

    /** Creates the table and waits until it is ACTIVE, as code against DynamoDB must. */
    static void createTable(DynamoDbClient client, String name) {
        client.createTable(createTableRequest(name));
        TestTables.awaitActive(client, name);
    }

    /** An on-demand table keyed by the string attribute "pk". */
    static CreateTableRequest createTableRequest(String name) {
        return CreateTableRequest.builder()
                .tableName(name)
                .keySchema(KeySchemaElement.builder()
                        .attributeName("pk")
                        .keyType(KeyType.HASH)
                        .build())
                .attributeDefinitions(AttributeDefinition.builder()
                        .attributeName("pk")
                        .attributeType(ScalarAttributeType.S)
                        .build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .build();
    }

    static Map<String, AttributeValue> item(String pk, String value) {
        return Map.of("pk", AttributeValue.fromS(pk), "value", AttributeValue.fromN(value));
    }
}
