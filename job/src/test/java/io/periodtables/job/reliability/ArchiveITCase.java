package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.archive.ArchiveRow;
import io.periodtables.archive.PeriodManifest;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;
import io.periodtables.conf.WriteSharding;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.job.ArchivedPeriods;
import io.periodtables.model.Reading;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

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

        assertArchiveMatchesTables(run, new ArchiveReader(archive.toUri().toString()));
    }

    @Test
    void aRestoreFromASavepointMidPeriodCommitsEveryRowOnce(@TempDir Path archive, @TempDir Path savepoints)
            throws Exception {
        ReliabilityRun run = ReliabilityRun.of(config("arch_restore", archive), Fleet.standard());
        ArchiveReader reader = new ArchiveReader(archive.toUri().toString());
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(25);

        JobClient first = submit(run, slow, null);
        await("rows committed before the stop")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> committedRows(reader) >= 40);
        // A drained stop (what the local run's Ctrl-C and --duration do) ends the input with the
        // final watermark; it must not mark the period it stopped in.
        String savepoint = first.stopWithSavepoint(true, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long atStop = committedRows(reader);
        assertThat(atStop)
                .as("stopped mid-stream")
                .isLessThan(run.expected.readings().size());
        List<String> withRows = reader.partitions();
        Period stoppedIn = periods(run).stream()
                .filter(p -> withRows.contains(ArchivePartitions.period(p)))
                .reduce((a, b) -> b)
                .orElseThrow();
        assertThat(reader.isArchived(stoppedIn))
                .as("the period the drained stop ended in is not marked")
                .isFalse();
        assertThat(new ArchivedPeriods(archive.toUri().toString()).archived(stoppedIn))
                .as("retention keeps its table")
                .isFalse();

        submit(run, new TestSource.Hooks(), savepoint).getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertArchiveMatchesTables(run, reader);
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

    private static JobClient submit(ReliabilityRun run, TestSource.Hooks hooks, String savepoint) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        TestSource.build(env, run.config, run.input, hooks);
        StreamGraph graph = env.getStreamGraph();
        if (savepoint != null) {
            graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
        }
        return env.executeAsync(graph);
    }

    private static void assertArchiveMatchesTables(ReliabilityRun run, ArchiveReader reader) throws Exception {
        TableSnapshot tables = run.snapshot(DYNAMODB.emulator());
        TableNaming naming = run.config.naming();
        Map<String, List<ArchiveRow>> rows = new TreeMap<>();
        for (String partition : reader.partitions()) {
            reader.rows(
                    partition,
                    row -> rows.computeIfAbsent(partition, p -> new ArrayList<>())
                            .add(row));
        }

        // Distinct on (pk, sk), each folder is its table.
        for (Period period : periods(run)) {
            String partition = ArchivePartitions.period(period);
            assertThat(distinct(rows.get(partition), naming.periodTable(period)))
                    .as("distinct items of %s", partition)
                    .isEqualTo(tables.itemsOf(naming.periodTable(period)));
        }
        List<ArchiveRow> late = new ArrayList<>();
        rows.forEach((partition, list) -> {
            if (partition.startsWith("late=")) {
                late.addAll(list);
            }
        });
        assertThat(distinct(late, ExpectedTables.LATE)).as("late rows").isEqualTo(tables.itemsOf(ExpectedTables.LATE));
        assertThat(rows.keySet())
                .as("one folder per table")
                .hasSize(periods(run).size() + tables.lateTables().size());

        // Every reading of the input is one committed row: duplicates in, duplicates archived, none doubled.
        assertThat(keyCounts(rows.values().stream()
                        .flatMap(List::stream)
                        .map(r -> r.pk() + " " + r.sk())
                        .toList()))
                .as("rows per key")
                .isEqualTo(keyCounts(inputKeys(run)));

        // The input ends in the last period: only the watermark of the input closes a period, so
        // that one stays unmarked (a resumed run would complete it).
        List<Period> closed = periods(run).subList(0, periods(run).size() - 1);
        for (Period period : closed) {
            String partition = ArchivePartitions.period(period);
            assertThat(reader.manifest(period))
                    .as("marker of %s", partition)
                    .contains(new PeriodManifest(
                            period.label(),
                            rows.get(partition).size(),
                            tables.itemsOf(naming.periodTable(period)).size(),
                            reader.files(partition)));
        }
        // What retention asks: every closed period is archived, the last one is not.
        ArchivedPeriods gate = new ArchivedPeriods(run.config.get(ConfigKeys.ARCHIVE_PATH));
        for (Period period : closed) {
            assertThat(gate.archived(period))
                    .as("%s archived for retention", period.label())
                    .isTrue();
        }
        assertThat(gate.archived(periods(run).get(periods(run).size() - 1))).isFalse();

        ArchiveDuckDb.assertReadsLikeTheTables(run, tables, rows);
    }

    /** The periods of the run's period tables, in time order. */
    private static List<Period> periods(ReliabilityRun run) {
        return run.expected.items().keySet().stream()
                .map(ItemRef::table)
                .distinct()
                .map(table -> run.config.naming().parse(table))
                .filter(ref -> ref.isPresent() && ref.get().kind() == TableNaming.TableRef.Kind.PERIOD)
                .map(ref -> ref.get().period())
                .sorted((a, b) -> a.start().compareTo(b.start()))
                .toList();
    }

    /** Rows as table items, one per key (a later duplicate is the same item). */
    private static Map<ItemRef, Map<String, AttributeValue>> distinct(List<ArchiveRow> rows, String table) {
        Map<ItemRef, Map<String, AttributeValue>> items = new TreeMap<>();
        for (ArchiveRow row : rows == null ? List.<ArchiveRow>of() : rows) {
            items.put(new ItemRef(table, row.pk(), row.sk()), Attributes.canonical(row.item()));
        }
        return items;
    }

    private static List<String> inputKeys(ReliabilityRun run) {
        WriteSharding sharding = run.config.sharding();
        List<String> keys = new ArrayList<>();
        for (Reading r : run.expected.readings()) {
            WriteSharding.ItemKey key = sharding.keyOf(r.deviceId(), r.eventMillis(), r.eventId(), r.canonical());
            keys.add(key.pk() + " " + key.sk());
        }
        return keys;
    }

    private static Map<String, Integer> keyCounts(List<String> keys) {
        Map<String, Integer> counts = new TreeMap<>();
        keys.forEach(k -> counts.merge(k, 1, Integer::sum));
        return counts;
    }

    private static long committedRows(ArchiveReader reader) throws IOException {
        long[] n = {0};
        for (String partition : reader.partitions()) {
            reader.rows(partition, row -> n[0]++);
        }
        return n[0];
    }
}
