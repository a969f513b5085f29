package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.job.RollupCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A restore with a setting changed that the state is laid out by, on the production topology:
 * the job, whose restart strategy would restart it without end (checkpointing on, none set),
 * fails once with the one line, and no table of the changed prefix is created but the writers'
 * bookkeeping table, which the sink writers ensure as they start. A restore with the same
 * settings spelled another way, and the latest table turned on, runs on: every reading stored
 * once, and the latest table filled from the restore on. A restore without the archive a
 * savepoint holds the state of is refused in the line that names {@code archive.path}, not by
 * Flink's operator check.
 */
class RedeploySettingsITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);
    /** A stop with a savepoint on a loaded machine: the bound of a wait for a condition, not its time. */
    private static final Duration STOP_BOUND = Duration.ofMinutes(3);

    @Test
    void aRestoreWithAnotherPrefixFailsOnceWithOneLineAndCreatesNoTableOfIt(@TempDir Path savepoints) throws Exception {
        ReliabilityRun before = ReliabilityRun.of(config("settings_a"), Fleet.standard());
        String savepoint = stopWithSavepoint(before, savepoints);

        // the latest table turned off too: its sinks hold no state, so Flink's operator check lets the
        // restore through to the refusal of the prefix
        ReliabilityRun changed = ReliabilityRun.of(config("settings_b", "latest.enabled", "false"), Fleet.standard());
        JobClient second = ArchiveCheck.submit(changed, new TestSource.Hooks(), savepoint);
        try {
            assertThatThrownBy(() -> second.getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS))
                    .rootCause()
                    .hasMessage("Invalid configuration: tables.prefix = 'settings_b' cannot change across a restore:"
                            + " the savepoint was taken with tables.prefix = 'settings_a'; set it back, or start"
                            + " without the savepoint (docs/operations.md, What may change across a redeploy)");
        } finally {
            ArchiveCheck.cancelIfRunning(second);
        }
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            assertThat(client.listTablesPaginator().tableNames().stream().filter(n -> n.startsWith("settings_b_")))
                    .as("tables of the changed prefix")
                    .isSubsetOf(changed.config.naming().writersTable());
        }
    }

    @Test
    void aRestoreThatSpellsTheSettingsAnotherWayAndTurnsTheLatestTableOnStoresEveryReadingOnce(@TempDir Path savepoints)
            throws Exception {
        Instant start = Instant.now();
        ReliabilityRun before =
                ReliabilityRun.of(config("spelled", "tables.zone", "UTC", "latest.enabled", "false"), Fleet.standard());
        String savepoint = stopWithSavepoint(before, savepoints);

        ReliabilityRun restored = ReliabilityRun.of(
                config("spelled", "tables.zone", "Etc/UTC", "tables.period", "PT60M", "latest.enabled", "true"),
                Fleet.standard());
        JobClient second = ArchiveCheck.submit(restored, new TestSource.Hooks(), savepoint);
        try {
            second.getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(second);
        }

        TableSnapshot stored;
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            stored = TableSnapshot.read(client, restored.config.naming());
            ExactlyOnceCheck.assertExactlyOnce(restored.expected, stored, start, Instant.now());
            // every device of the fleet sends after the restore: the latest table fills from it on
            assertThat(RollupCheck.latest(client, restored.config))
                    .as("the latest table, on from the restore")
                    .hasSize(Fleet.DEVICES)
                    .isEqualTo(RollupCheck.expectedLatest(
                            restored.config, stored.readingsByTable(restored.config.naming())));
        }
    }

    @Test
    void aRestoreWithoutTheArchiveIsRefusedInOneLineNamingArchivePath(@TempDir Path savepoints, @TempDir Path archive)
            throws Exception {
        ReliabilityRun archived = ReliabilityRun.of(
                config("unarchived", "archive.path", archive.toUri().toString()), Fleet.standard());
        String savepoint = stopWithSavepoint(archived, savepoints);

        Configuration restore = new Configuration();
        restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(restore);
        env.setParallelism(2);
        assertThatThrownBy(() -> {
                    TestSource.build(env, config("unarchived"), Fleet.standard(), new TestSource.Hooks());
                    env.execute("without the archive");
                })
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid configuration: archive.path = '(unset)' cannot change across a restore: the"
                        + " savepoint was taken with an archive, whose state it holds; set archive.path back, or"
                        + " start without the savepoint (docs/operations.md, What may change across a redeploy)");
    }

    /** Runs {@code run} slowly until it stored some readings, then stops it with a savepoint: its path. */
    private static String stopWithSavepoint(ReliabilityRun run, Path savepoints) throws Exception {
        TestSource.Hooks slow = new TestSource.Hooks(); // the input lasts over a minute: stopped, never ended
        slow.rate = RateLimiterStrategy.perSecond(5);
        JobClient first = ArchiveCheck.submit(run, slow, null);
        try {
            await("readings written before the stop")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> run.snapshot(DYNAMODB.emulator()).size() >= 20);
            return first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(STOP_BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(first);
        }
    }

    private static PeriodTablesConfig config(String prefix, String... keyValues) {
        String[] all = new String[keyValues.length + 2];
        all[0] = "rollups.every";
        all[1] = "PT15M";
        System.arraycopy(keyValues, 0, all, 2, keyValues.length);
        return ReliabilityRun.config(DYNAMODB.emulator().endpoint(), prefix, all);
    }
}
