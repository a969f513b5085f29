package io.periodtables.rotation;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.TestTables;
import io.periodtables.rotation.controlplane.TableManagerSettings;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/** Configurations, settings and small waits the rotation tests share. */
public final class TestSetup {
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private TestSetup() {}

    /**
     * The dynalite all tests of this JVM share (its first request costs seconds); rotation
     * tests keep apart by table prefix.
     */
    public static Dynalite dynamoDb() {
        return DynaliteExtension.shared();
    }

    /** A table prefix no other test of this JVM uses. */
    public static String uniquePrefix(String base) {
        return base + PREFIXES.incrementAndGet();
    }

    /** A configuration pointing at {@code endpoint}, with {@code keyValues} on top of the defaults. */
    public static PeriodTablesConfig config(URI endpoint, String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("dynamodb.endpoint", endpoint.toString());
        map.put("dynamodb.embedded", "false");
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigLoader.fromMap(map, true);
    }

    /** Fast settings: dynalite answers in milliseconds. */
    public static TableManagerSettings fastSettings() {
        return TableManagerSettings.builder()
                .pollInterval(Duration.ofMillis(20))
                .activeTimeout(Duration.ofSeconds(20))
                .backoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .decreaseQuotaDelay(Duration.ofMillis(300))
                .build();
    }

    @SafeVarargs
    public static DynamoDbClients clients(
            PeriodTablesConfig config, Class<? extends ExecutionInterceptor>... interceptors) {
        return DynamoDbClients.of(config).withInterceptors(List.of(interceptors));
    }

    public static TableDescription describe(Dynalite local, String table) {
        try (DynamoDbClient client = local.syncClient()) {
            return client.describeTable(b -> b.tableName(table)).table();
        }
    }

    /**
     * Waits until the table is ACTIVE on DynamoDB's clock, for a test whose own clock jumps ahead
     * of it (the layer keeps a table UPDATING for 500 ms of real time after a change).
     */
    public static void awaitActive(Dynalite local, String table) {
        try (DynamoDbClient client = local.syncClient()) {
            TestTables.awaitActive(client, table);
        }
    }

    /**
     * Waits until each table is gone, for a test that lists or describes tables after a
     * DeleteTable (its own or the rotation's): DynamoDB lists a deleted table and describes it
     * DELETING for a while, the layer for 500 ms.
     */
    public static void awaitGone(Dynalite local, String... tables) {
        try (DynamoDbClient client = local.syncClient()) {
            TestTables.awaitGone(client, tables);
        }
    }

    public static List<String> tableNames(Dynalite local, String prefix) {
        try (DynamoDbClient client = local.syncClient()) {
            return client.listTablesPaginator(b -> b.limit(100)).tableNames().stream()
                    .filter(n -> n.startsWith(prefix + "_"))
                    .toList();
        }
    }

    /** Polls {@code condition} until it holds or {@code bound} passes; returns whether it held. */
    public static boolean eventually(Duration bound, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(bound);
        while (Instant.now().isBefore(deadline)) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }
}
