package io.periodtables.core.dynamodb;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientAsyncConfiguration;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.client.config.SdkAdvancedAsyncClientOption;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;

/**
 * Builds the DynamoDB client every part of period-tables uses, from configuration: region,
 * endpoint override, the default credential chain, and an explicit Netty HTTP/1.1 client (so
 * that no "multiple HTTP implementations" surprise can happen in the shaded jar or next to
 * dynalite). The SDK's own retries are off: the sink and the table manager retry with
 * their own schedules and count what they retry. {@code sink.request-timeout} bounds a request
 * attempt through the HTTP client's read and write timeouts (no answer, or no progress sending,
 * for that long fails the attempt); the SDK's attempt timeout would add a timer task on a thread
 * of its own for every request. The Netty client sits behind {@link AbortGuardedHttpClient}, so
 * that an error answer (a throttled write, a table in use) keeps its connection, on the event loops
 * of {@link SharedEventLoops}, so closing the last client does not wait. An endpoint on
 * 127.0.0.1/localhost (an emulator) gets fixed dummy credentials.
 */
@PublicEvolving
public final class DynamoDbClients implements Serializable {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private final List<Class<? extends ExecutionInterceptor>> interceptors;

    private DynamoDbClients(PeriodTablesConfig config, List<Class<? extends ExecutionInterceptor>> interceptors) {
        this.config = config;
        this.interceptors = List.copyOf(interceptors);
    }

    public static DynamoDbClients of(PeriodTablesConfig config) {
        return new DynamoDbClients(config, List.of());
    }

    /**
     * Adds SDK interceptors, instantiated per client with their no-argument constructor (tests
     * use this to inject faults on top of dynalite).
     */
    public DynamoDbClients withInterceptors(List<Class<? extends ExecutionInterceptor>> more) {
        java.util.ArrayList<Class<? extends ExecutionInterceptor>> all = new java.util.ArrayList<>(interceptors);
        all.addAll(more);
        return new DynamoDbClients(config, all);
    }

    /** A new async client; the caller closes it. */
    public DynamoDbAsyncClient newAsyncClient(int maxConcurrency) {
        return builder(maxConcurrency).build();
    }

    /**
     * A new async client whose futures complete on the HTTP client's I/O threads instead of
     * being handed to the SDK's completion executor: one thread wake-up less per request. Only
     * for callers whose callbacks never block (the sink's hand each answer to its mailbox); a
     * blocking callback would stall the I/O thread. The caller closes it.
     */
    public DynamoDbAsyncClient newAsyncClientForNonBlockingCallbacks(int maxConcurrency) {
        return builder(maxConcurrency)
                .asyncConfiguration(ClientAsyncConfiguration.builder()
                        .advancedOption(SdkAdvancedAsyncClientOption.FUTURE_COMPLETION_EXECUTOR, Runnable::run)
                        .build())
                .build();
    }

    private DynamoDbAsyncClientBuilder builder(int maxConcurrency) {
        Duration timeout = config.get(ConfigKeys.SINK_REQUEST_TIMEOUT);
        ClientOverrideConfiguration.Builder override =
                ClientOverrideConfiguration.builder().retryPolicy(p -> p.numRetries(0));
        for (Class<? extends ExecutionInterceptor> type : interceptors) {
            try {
                override.addExecutionInterceptor(type.getDeclaredConstructor().newInstance());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create interceptor " + type.getName(), e);
            }
        }
        DynamoDbAsyncClientBuilder builder = DynamoDbAsyncClient.builder()
                .region(Region.of(config.get(ConfigKeys.AWS_REGION)))
                .overrideConfiguration(override.build())
                .httpClientBuilder(
                        AbortGuardedHttpClient.around(SharedEventLoops.around(NettyNioAsyncHttpClient.builder()
                                .protocol(Protocol.HTTP1_1)
                                .maxConcurrency(Math.max(maxConcurrency, 1))
                                .readTimeout(timeout)
                                .writeTimeout(timeout)
                                .connectionTimeout(Duration.ofSeconds(5)))));
        config.dynamoDbEndpoint().ifPresent(endpoint -> {
            builder.endpointOverride(endpoint);
            if (isLoopback(endpoint)) {
                // An emulator on this machine accepts any credentials; don't require real ones.
                builder.credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
            }
        });
        return builder;
    }

    /** True for an endpoint on this machine (an emulator), which gets fixed dummy credentials. */
    public static boolean isLoopback(URI endpoint) {
        String host = endpoint.getHost();
        return host != null && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]"));
    }
}
