package io.periodtables.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/** The instant backend answers the SDK like DynamoDB would, so the capacity benchmark measures a working job. */
class InstantDynamoDbTest {

    @Test
    void acceptsEveryBatchAndKeepsTheTablesTheRotationCreates() throws Exception {
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                DynamoDbAsyncClient client = DynamoDbAsyncClient.builder()
                        .endpointOverride(backend.endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(
                                StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                        .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                        .build()) {
            assertThatThrownBy(() -> client.describeTable(b -> b.tableName("readings_2026-11-22T1300"))
                            .join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(ResourceNotFoundException.class);

            client.createTable(b -> b.tableName("readings_2026-11-22T1300")
                            .provisionedThroughput(
                                    p -> p.writeCapacityUnits(1000L).readCapacityUnits(300L)))
                    .join();
            client.updateTable(b -> b.tableName("readings_2026-11-22T1300")
                            .provisionedThroughput(p -> p.writeCapacityUnits(1L).readCapacityUnits(100L)))
                    .join();
            TableDescription table = client.describeTable(b -> b.tableName("readings_2026-11-22T1300"))
                    .join()
                    .table();
            assertThat(table.tableStatus()).isEqualTo(TableStatus.ACTIVE);
            assertThat(table.keySchema())
                    .extracting(k -> k.attributeName() + "/" + k.keyType())
                    .containsExactly("pk/" + KeyType.HASH, "sk/" + KeyType.RANGE);
            assertThat(table.provisionedThroughput().writeCapacityUnits()).isEqualTo(1L);

            WriteRequest put = WriteRequest.builder()
                    .putRequest(PutRequest.builder()
                            .item(Map.of("pk", AttributeValue.fromS("device-1#0"), "sk", AttributeValue.fromS("x")))
                            .build())
                    .build();
            BatchWriteItemResponse written = client.batchWriteItem(b -> b.requestItems(
                            Map.of("readings_2026-11-22T1300", List.of(put), "readings_2026-11-22T1400", List.of(put))))
                    .join();
            assertThat(written.unprocessedItems()).isEmpty();
            assertThat(backend.batchWrites()).isEqualTo(1);
        }
    }

    /** The rotation asks before it lowers a table (4 decreases a UTC day, then one an hour): as DynamoDB, it is told the count. */
    @Test
    void reportsATablesCapacityDecreasesOfTheDay() throws Exception {
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                DynamoDbAsyncClient client = client(backend)) {
            String name = "readings_2026-11-22T1300";
            client.createTable(b -> b.tableName(name)
                            .provisionedThroughput(
                                    p -> p.writeCapacityUnits(1000L).readCapacityUnits(300L)))
                    .join();
            for (long write : new long[] {1, 5, 1}) { // down, up, down
                client.updateTable(b -> b.tableName(name)
                                .provisionedThroughput(
                                        p -> p.writeCapacityUnits(write).readCapacityUnits(100L)))
                        .join();
            }
            ProvisionedThroughputDescription throughput =
                    client.describeTable(b -> b.tableName(name)).join().table().provisionedThroughput();
            assertThat(throughput.numberOfDecreasesToday()).isEqualTo(2L);
            assertThat(throughput.lastDecreaseDateTime()).isNotNull();
        }
    }

    private static DynamoDbAsyncClient client(InstantDynamoDb backend) {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(backend.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .build();
    }
}
