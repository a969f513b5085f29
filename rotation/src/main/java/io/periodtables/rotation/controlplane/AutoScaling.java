package io.periodtables.rotation.controlplane;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.dynamodb.AbortGuardedHttpClient;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.SharedEventLoops;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.applicationautoscaling.ApplicationAutoScalingAsyncClient;
import software.amazon.awssdk.services.applicationautoscaling.ApplicationAutoScalingAsyncClientBuilder;
import software.amazon.awssdk.services.applicationautoscaling.model.MetricType;
import software.amazon.awssdk.services.applicationautoscaling.model.ObjectNotFoundException;
import software.amazon.awssdk.services.applicationautoscaling.model.PolicyType;
import software.amazon.awssdk.services.applicationautoscaling.model.ScalableDimension;
import software.amazon.awssdk.services.applicationautoscaling.model.ServiceNamespace;

/**
 * The open table's registration with Application Auto Scaling ({@code tables.capacity.autoscaling}):
 * both its write and read capacity as scalable targets, between {@code tables.capacity.current.min}
 * and {@code .max}, each with a target-tracking policy at {@code tables.capacity.target-utilization};
 * and the deregistration (which deletes the policies too) before the table is dialed down, so that
 * auto scaling does not undo the lower tier. Single attempts; {@link TableManager} retries them.
 */
public final class AutoScaling implements AutoCloseable {
    static final String WRITE_POLICY = "period-tables-write-utilization";
    static final String READ_POLICY = "period-tables-read-utilization";

    private final ApplicationAutoScalingAsyncClient client;
    private final Capacity min;
    private final Capacity max;
    private final double targetPercent;

    AutoScaling(ApplicationAutoScalingAsyncClient client, PeriodTablesConfig config) {
        this.client = client;
        this.min = config.get(TableKeys.CAPACITY_CURRENT_MIN);
        this.max = config.get(TableKeys.CAPACITY_CURRENT_MAX);
        this.targetPercent = Math.round(config.get(TableKeys.CAPACITY_TARGET_UTILIZATION) * 1000) / 10.0;
    }

    /**
     * With a client of its own when {@link PeriodTablesConfig#autoscaling()} is on; {@code aws.endpoint} overrides its
     * endpoint.
     */
    static Optional<AutoScaling> of(PeriodTablesConfig config) {
        if (!config.autoscaling()) {
            return Optional.empty();
        }
        ApplicationAutoScalingAsyncClientBuilder builder = ApplicationAutoScalingAsyncClient.builder()
                .region(Region.of(config.get(ConfigKeys.AWS_REGION)))
                .httpClientBuilder(
                        AbortGuardedHttpClient.around(SharedEventLoops.around(NettyNioAsyncHttpClient.builder()
                                .protocol(Protocol.HTTP1_1)
                                .connectionTimeout(Duration.ofSeconds(5)))));
        config.find(ConfigKeys.AWS_ENDPOINT).ifPresent(endpoint -> {
            builder.endpointOverride(endpoint);
            if (DynamoDbClients.isLoopback(endpoint)) {
                builder.credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
            }
        });
        return Optional.of(new AutoScaling(builder.build(), config));
    }

    /** Registers both dimensions of {@code table} and puts their policies (all idempotent). */
    CompletableFuture<Void> register(String table) {
        return register(
                        table,
                        ScalableDimension.DYNAMODB_TABLE_WRITE_CAPACITY_UNITS,
                        min.writeUnits(),
                        max.writeUnits(),
                        WRITE_POLICY,
                        MetricType.DYNAMO_DB_WRITE_CAPACITY_UTILIZATION)
                .thenCompose(ok -> register(
                        table,
                        ScalableDimension.DYNAMODB_TABLE_READ_CAPACITY_UNITS,
                        min.readUnits(),
                        max.readUnits(),
                        READ_POLICY,
                        MetricType.DYNAMO_DB_READ_CAPACITY_UTILIZATION));
    }

    /** Deregisters both dimensions of {@code table}; a target that is not registered counts as done. */
    CompletableFuture<Void> deregister(String table) {
        return deregister(table, ScalableDimension.DYNAMODB_TABLE_WRITE_CAPACITY_UNITS)
                .thenCompose(ok -> deregister(table, ScalableDimension.DYNAMODB_TABLE_READ_CAPACITY_UNITS));
    }

    private CompletableFuture<Void> register(
            String table, ScalableDimension dimension, long low, long high, String policy, MetricType metric) {
        return client.registerScalableTarget(b -> b.serviceNamespace(ServiceNamespace.DYNAMODB)
                        .resourceId(resourceId(table))
                        .scalableDimension(dimension)
                        .minCapacity(toInt(low))
                        .maxCapacity(toInt(high)))
                .thenCompose(ok -> client.putScalingPolicy(b -> b.serviceNamespace(ServiceNamespace.DYNAMODB)
                        .resourceId(resourceId(table))
                        .scalableDimension(dimension)
                        .policyName(policy)
                        .policyType(PolicyType.TARGET_TRACKING_SCALING)
                        .targetTrackingScalingPolicyConfiguration(c -> c.targetValue(targetPercent)
                                .predefinedMetricSpecification(m -> m.predefinedMetricType(metric)))))
                .thenApply(ok -> null);
    }

    private CompletableFuture<Void> deregister(String table, ScalableDimension dimension) {
        return client.deregisterScalableTarget(b -> b.serviceNamespace(ServiceNamespace.DYNAMODB)
                        .resourceId(resourceId(table))
                        .scalableDimension(dimension))
                .handle((ok, error) -> {
                    if (error != null && !(ControlPlaneErrors.unwrap(error) instanceof ObjectNotFoundException)) {
                        throw new CompletionException(ControlPlaneErrors.unwrap(error));
                    }
                    return null;
                });
    }

    static String resourceId(String table) {
        return "table/" + table;
    }

    private static int toInt(long units) {
        return (int) Math.min(Integer.MAX_VALUE, units);
    }

    @Override
    public void close() {
        client.close();
    }
}
