package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A restore with a setting changed that the state is laid out by, on the production topology:
 * the job, whose restart strategy would restart it without end (checkpointing on, none set),
 * fails once with the one line, and no table of the changed prefix is created but the writers'
 * bookkeeping table, which the sink writers ensure as they start.
 */
class RedeploySettingsITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void aRestoreWithAnotherPrefixFailsOnceWithOneLineAndCreatesNoTableOfIt(@TempDir Path savepoints) throws Exception {
        ReliabilityRun before = ReliabilityRun.of(config("settings_a"), Fleet.standard());
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(20);
        JobClient first = ArchiveCheck.submit(before, slow, null);
        String savepoint;
        try {
            await("readings written before the stop")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> before.snapshot(DYNAMODB.emulator()).size() >= 20);
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(first);
        }

        ReliabilityRun changed = ReliabilityRun.of(config("settings_b"), Fleet.standard());
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

    private static PeriodTablesConfig config(String prefix) {
        return ReliabilityRun.config(DYNAMODB.emulator().endpoint(), prefix, "rollups.every", "PT15M");
    }
}
