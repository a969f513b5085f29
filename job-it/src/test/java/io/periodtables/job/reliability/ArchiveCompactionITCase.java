package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.archive.PeriodManifest;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.DynaliteExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction (issue 40) on the production topology: the {@link Fleet}'s hourly periods arrive over
 * many checkpoints (one part file per writer subtask and checkpoint), and each closed period's
 * folder ends as one compacted file, its marker counting what DuckDB reads there.
 */
class ArchiveCompactionITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void aPeriodWrittenOverManyCheckpointsEndsAsOneFileItsMarkerCounts(@TempDir Path archive) throws Exception {
        ReliabilityRun run = ReliabilityRun.of(
                ReliabilityRun.config(
                        DYNAMODB.emulator().endpoint(),
                        "arch_compact",
                        "archive.path",
                        archive.toUri().toString(),
                        "archive.columns",
                        ArchiveDuckDb.COLUMNS),
                Fleet.standard());
        ArchiveReader reader = new ArchiveReader(archive.toUri().toString());
        List<Period> periods = ArchiveCheck.periods(run);
        String first = ArchivePartitions.period(periods.get(0));
        // 15 readings a checkpoint: the first period's 125 rows arrive over at least 8 checkpoints.
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perCheckpoint(15);

        JobClient job = ArchiveCheck.submit(run, slow, null);
        AtomicInteger most = new AtomicInteger();
        try {
            await("part files of the first period, one per subtask and checkpoint")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(50))
                    // how many depends on how the windows' batches fall on checkpoints: a loaded
                    // machine left 4 (compacted at once, as the period closed), a quiet one 6 or more
                    .until(() -> most.accumulateAndGet(reader.files(first), Math::max) >= 3);
            job.getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } finally {
            ArchiveCheck.cancelIfRunning(job);
        }

        ArchiveCheck.Archived archived = ArchiveCheck.assertMatchesTables(run, reader, DYNAMODB.emulator());
        for (Period period : periods.subList(0, periods.size() - 1)) {
            String partition = ArchivePartitions.period(period);
            assertThat(reader.files(partition))
                    .as("data files of %s, a few KB of rows", partition)
                    .isOne();
            PeriodManifest marker = reader.manifest(period).orElseThrow();
            assertThat(ArchiveDuckDb.counts(archive, period.label()))
                    .as("rows, distinct keys and files of %s, read by DuckDB", partition)
                    .isEqualTo(List.of(marker.rows(), marker.distinctKeys(), (long) marker.files()));
        }
        ArchiveDuckDb.assertReadsLikeTheTables(run, archived.tables(), archived.rows());
    }
}
