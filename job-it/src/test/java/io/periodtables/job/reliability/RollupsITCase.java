package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.job.RollupCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Rollups and the latest table (issue 30) on the production topology with the {@link Fleet}'s
 * three hourly periods (duplicates, an {@code eventId} resent, a late reading, one within the
 * grace): every rollup item equals the aggregate computed here, independently, from the items the
 * period tables hold; the latest table holds each device's newest stored reading; and a run at
 * parallelism 1 and one at parallelism 2 stopped with a drain mid-way and resumed from its
 * savepoint leave identical tables.
 */
class RollupsITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void rollupsAreTheStoredItemsAggregatesTheSameAtAnyParallelismAndAcrossADrainedStop(@TempDir Path savepoints)
            throws Exception {
        ReliabilityRun single = ReliabilityRun.of(config("roll_p1"), Fleet.standard());
        single.execute(new TestSource.Hooks(), env -> {
            env.setParallelism(1);
            env.enableCheckpointing(200);
        });
        TableSnapshot tables = single.assertExactlyOnce(DYNAMODB.emulator());
        Map<String, List<Map<String, AttributeValue>>> items = tables.readingsByTable(single.config.naming());
        assertThat(rollups(single.config))
                .as("rollup items")
                .isNotEmpty()
                .isEqualTo(RollupCheck.expected(single.config, items, end -> true));
        assertThat(latest(single.config))
                .as("latest table")
                .isEqualTo(RollupCheck.expectedLatest(single.config, items));

        ReliabilityRun restored = ReliabilityRun.of(config("roll_p2"), Fleet.standard());
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(40);
        JobClient first = ArchiveCheck.submit(restored, slow, null);
        String savepoint;
        try {
            await("rollups written before the stop")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> !rollups(restored.config).isEmpty());
            savepoint = first.stopWithSavepoint(true, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(first);
        }
        ArchiveCheck.submit(restored, new TestSource.Hooks(), savepoint)
                .getJobExecutionResult()
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertThat(rollups(restored.config)).isNotEmpty().isEqualTo(rollups(single.config));
        assertThat(latest(restored.config)).isNotEmpty().isEqualTo(latest(single.config));
    }

    /**
     * Rollups added in a redeploy: a savepoint of the job without them restores into the job
     * with them (new operators, no state to map), and the periods that start after the restore
     * are rolled up completely (the one in progress counts its readings from the restore on).
     */
    @Test
    void rollupsAddedToARunningJobRestoreFromItsSavepoint(@TempDir Path savepoints) throws Exception {
        PeriodTablesConfig without = ReliabilityRun.config(DYNAMODB.emulator().endpoint(), "roll_add");
        ReliabilityRun before = ReliabilityRun.of(without, Fleet.standard());
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(5);
        JobClient first = ArchiveCheck.submit(before, slow, null);
        String savepoint;
        try {
            await("readings written before the stop")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> before.snapshot(DYNAMODB.emulator()).size() >= 40);
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(first);
        }
        assertThat(rollups(without)).as("no rollups before").isEmpty();
        // 08:00 when the stop is quick; the first run may have gone on into 09:00 on a loaded machine
        String firstComplete = before.snapshot(DYNAMODB.emulator()).firstPeriodAfter(without, Duration.ofMinutes(15));

        ReliabilityRun after = ReliabilityRun.of(config("roll_add"), Fleet.standard());
        ArchiveCheck.submit(after, new TestSource.Hooks(), savepoint)
                .getJobExecutionResult()
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);

        Map<String, String> expected = RollupCheck.expected(
                after.config, after.snapshot(DYNAMODB.emulator()).readingsByTable(after.config.naming()), end -> true);
        expected.keySet().removeIf(key -> key.compareTo(firstComplete) < 0);
        Map<String, String> rolled = rollups(after.config);
        rolled.keySet().removeIf(key -> key.compareTo(firstComplete) < 0);
        assertThat(rolled)
                .as("rollups of the periods after the restore")
                .isNotEmpty()
                .isEqualTo(expected);
    }

    private static PeriodTablesConfig config(String prefix) {
        return ReliabilityRun.config(DYNAMODB.emulator().endpoint(), prefix, "rollups.every", "PT15M,PT1H");
    }

    private static Map<String, String> rollups(PeriodTablesConfig config) {
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            return RollupCheck.stored(client, config);
        }
    }

    private static Map<String, String> latest(PeriodTablesConfig config) {
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            return RollupCheck.latest(client, config);
        }
    }
}
