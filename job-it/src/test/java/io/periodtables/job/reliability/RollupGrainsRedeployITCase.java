package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.job.RollupCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code rollups.every} changed across a savepoint on the production topology: the {@link Fleet}
 * runs with {@code PT1M,PT1H}, is stopped with a savepoint in its first period (08:00, or the
 * next on a slow machine) and restored with other grains. The kept grain ({@code PT1H}) carries on: its items equal the
 * aggregates of what the period tables hold, the period of the restore included. A dropped grain
 * ({@code PT1M}) is written no more and its state throws nothing. A new grain ({@code PT5M})
 * starts at the restore: complete in the periods after it, and in the period of the restore no
 * bucket that is not one of its own and none counting more than the period table holds.
 */
class RollupGrainsRedeployITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);

    @ParameterizedTest(name = "PT1M,PT1H -> {0}")
    @ValueSource(strings = {"PT1H", "PT5M,PT1H"})
    void changingTheGrainsAcrossASavepointKeepsTheKeptOnesDropsTheDroppedAndStartsTheNew(
            String after, @TempDir Path savepoints) throws Exception {
        String prefix = "grains" + after.length();
        ReliabilityRun before = ReliabilityRun.of(config(prefix, "PT1M,PT1H"), Fleet.standard());
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(5);
        JobClient first = ArchiveCheck.submit(before, slow, null);
        String savepoint;
        try {
            await("rollups written before the stop")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> before.snapshot(DYNAMODB.emulator()).size() >= 40
                            && !rollups(before.config).isEmpty());
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(first);
        }
        // the first run may have gone on into the next period on a loaded machine
        String firstComplete =
                before.snapshot(DYNAMODB.emulator()).firstPeriodAfter(before.config, Duration.ofMinutes(15));

        ReliabilityRun restored = ReliabilityRun.of(config(prefix, after), Fleet.standard());
        ArchiveCheck.submit(restored, new TestSource.Hooks(), savepoint)
                .getJobExecutionResult()
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);

        Map<String, String> expected = RollupCheck.expected(
                restored.config,
                restored.snapshot(DYNAMODB.emulator()).readingsByTable(restored.config.naming()),
                end -> true);
        Map<String, String> stored = rollups(restored.config);
        assertThat(of(stored, "PT1H"))
                .as("the kept grain's items, the period of the restore included")
                .isNotEmpty()
                .isEqualTo(of(expected, "PT1H"));
        if (after.contains("PT5M")) {
            Map<String, String> fresh = of(stored, "PT5M");
            Map<String, String> inFirst = new TreeMap<>(fresh);
            inFirst.keySet().removeIf(key -> key.compareTo(firstComplete) >= 0);
            fresh.keySet().removeAll(inFirst.keySet());
            Map<String, String> expectedAfter = of(expected, "PT5M");
            expectedAfter.keySet().removeIf(key -> key.compareTo(firstComplete) < 0);
            assertThat(fresh)
                    .as("the new grain's items in the periods after the restore")
                    .isNotEmpty()
                    .isEqualTo(expectedAfter);
            Map<String, String> expectedFirst = of(expected, "PT5M");
            inFirst.forEach((key, value) -> {
                assertThat(expectedFirst).as("a bucket of the new grain").containsKey(key);
                assertThat(readings(value))
                        .as("%s: readings counted from the restore on", key)
                        .isLessThanOrEqualTo(readings(expectedFirst.get(key)));
            });
        }
    }

    private static PeriodTablesConfig config(String prefix, String every) {
        return ReliabilityRun.config(DYNAMODB.emulator().endpoint(), prefix, "rollups.every", every);
    }

    /** The entries of {@code rollups} ({@code <period> <device> <sk>}) whose bucket is of {@code grain}. */
    private static Map<String, String> of(Map<String, String> rollups, String grain) {
        Map<String, String> of = new TreeMap<>(rollups);
        of.keySet().removeIf(key -> !key.contains(" " + grain + "#"));
        return of;
    }

    private static long readings(String described) {
        return Long.parseLong(described.substring("readings=".length()).split(" ")[0]);
    }

    private static Map<String, String> rollups(PeriodTablesConfig config) {
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            return RollupCheck.stored(client, config);
        }
    }
}
