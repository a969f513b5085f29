package io.periodtables.emulators;

import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Clients configured like period-tables' own (SDK retries off) with {@link DynamoDbFaults} installed. */
final class FaultyClients {
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

    private FaultyClients() {}

    static DynamoDbClient sync(Dynalite local) {
        return DynamoDbClient.builder()
                .endpointOverride(local.endpoint())
                .region(Dynalite.REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(override())
                .build();
    }

    static DynamoDbAsyncClient async(Dynalite local) {
        return DynamoDbAsyncClient.builder()
                .endpointOverride(local.endpoint())
                .region(Dynalite.REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder()
                        .protocol(Protocol.HTTP1_1)
                        .maxConcurrency(4))
                .overrideConfiguration(override())
                .build();
    }

    private static ClientOverrideConfiguration override() {
        return ClientOverrideConfiguration.builder()
                .apiCallAttemptTimeout(ATTEMPT_TIMEOUT)
                .retryPolicy(p -> p.numRetries(0))
                .addExecutionInterceptor(new DynamoDbFaults())
                .build();
    }
}
