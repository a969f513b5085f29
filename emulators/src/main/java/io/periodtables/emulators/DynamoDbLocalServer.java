package io.periodtables.emulators;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Main of the child JVM that {@link DynamoDbLocalProcess} starts: DynamoDB Local on 127.0.0.1,
 * in memory or with its data in the directory given as the only argument. Prints
 * {@code ENDPOINT <uri>} once listening and warmed up, and stops when its standard input
 * closes, which also happens when the parent JVM dies.
 */
public final class DynamoDbLocalServer {

    static final String ENDPOINT_LINE = "ENDPOINT ";
    private static final int WARM_UP_BATCHES = 200;

    private DynamoDbLocalServer() {}

    public static void main(String[] args) throws IOException {
        try (DynamoDbLocal local = args.length == 0 ? DynamoDbLocal.start() : DynamoDbLocal.start(Path.of(args[0]))) {
            warmUp(local);
            System.out.println(ENDPOINT_LINE + local.endpoint());
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for end of input
            }
        }
        System.exit(0);
    }

    /**
     * A cold DynamoDB Local takes seconds over its first CreateTable (its storage engine and
     * request path load lazily) and runs its first few thousand writes interpreted; a throwaway
     * table and a few thousand writes here spare the first real table that wait and the job's
     * first seconds that slowness.
     */
    private static void warmUp(DynamoDbLocal local) {
        String table = "dynamodb-local-warm-up";
        try (DynamoDbClient client = local.syncClient()) {
            client.createTable(b -> b.tableName(table)
                    .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("pk")
                            .attributeType(ScalarAttributeType.S).build())
                    .billingMode(BillingMode.PAY_PER_REQUEST));
            for (int batch = 0; batch < WARM_UP_BATCHES; batch++) {
                List<WriteRequest> writes = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    String key = batch + "-" + i;
                    writes.add(WriteRequest.builder().putRequest(p -> p.item(Map.of("pk", AttributeValue.fromS(key),
                            "value", AttributeValue.fromN("21.5")))).build());
                }
                client.batchWriteItem(b -> b.requestItems(Map.of(table, writes)));
            }
            client.deleteTable(b -> b.tableName(table));
        }
    }
}
