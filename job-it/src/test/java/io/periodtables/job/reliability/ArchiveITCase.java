package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.job.archive.ArchivedPeriods;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive (issue 16) on the production topology with {@code archive.path} on a temporary
 * folder and the {@link Fleet}'s three hourly periods (duplicates, late readings, rejections):
 * every period's folder holds, distinct on ({@code pk}, {@code sk}), exactly the items of its
 * table, late folders those of the late table, every input reading is one committed row, and
 * each closed period's marker counts what is there — also across a drained stop mid-period, which
 * marks nothing it did not close. DuckDB reads the folders as an analyst would ({@link ArchiveDuckDb}).
 */
class ArchiveITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    private static final Duration BOUND = Duration.ofSeconds(60);

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void everyStoredItemIsArchivedOnceAndEachPeriodIsMarkedWithItsCounts(@TempDir Path archive) throws Exception {
        ReliabilityRun run = ReliabilityRun.of(config("arch_once", archive), Fleet.standard())
                .execute(new TestSource.Hooks(), env -> env.enableCheckpointing(200));

        ArchiveCheck.Archived archived = ArchiveCheck.assertMatchesTables(
                run, new ArchiveReader(archive.toUri().toString()), DYNAMODB.emulator());
        ArchiveDuckDb.assertReadsLikeTheTables(run, archived.tables(), archived.rows());
    }

    @Test
    void aRestoreFromASavepointMidPeriodCommitsEveryRowOnce(@TempDir Path archive, @TempDir Path savepoints)
            throws Exception {
        ReliabilityRun run = ReliabilityRun.of(config("arch_restore", archive), Fleet.standard());
        ArchiveReader reader = new ArchiveReader(archive.toUri().toString());
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(25);

        JobClient first = ArchiveCheck.submit(run, slow, null);
        String savepoint;
        try {
            await("rows committed before the stop")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> ArchiveCheck.committedRows(reader) >= 40);
            // A drained stop (what the local run's Ctrl-C and --duration do) ends the input with the
            // final watermark; it must not mark the period it stopped in.
            savepoint = first.stopWithSavepoint(true, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(first);
        }
        long atStop = ArchiveCheck.committedRows(reader);
        assertThat(atStop)
                .as("stopped mid-stream")
                .isLessThan(run.expected.readings().size());
        List<String> withRows = reader.partitions();
        Period stoppedIn = ArchiveCheck.periods(run).stream()
                .filter(p -> withRows.contains(ArchivePartitions.period(p)))
                .reduce((a, b) -> b)
                .orElseThrow();
        assertThat(reader.isArchived(stoppedIn))
                .as("the period the drained stop ended in is not marked")
                .isFalse();
        assertThat(new ArchivedPeriods(archive.toUri().toString()).archived(stoppedIn))
                .as("retention keeps its table")
                .isFalse();

        ArchiveCheck.submit(run, new TestSource.Hooks(), savepoint)
                .getJobExecutionResult()
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);

        ArchiveCheck.Archived archived = ArchiveCheck.assertMatchesTables(run, reader, DYNAMODB.emulator());
        ArchiveDuckDb.assertReadsLikeTheTables(run, archived.tables(), archived.rows());
    }

    private static PeriodTablesConfig config(String prefix, Path archive) {
        return ReliabilityRun.config(
                DYNAMODB.emulator().endpoint(),
                prefix,
                "archive.path",
                archive.toUri().toString(),
                "archive.columns",
                ArchiveDuckDb.COLUMNS);
    }
}
