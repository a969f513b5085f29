package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.archive.ArchiveRow;
import io.periodtables.archive.PeriodManifest;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.job.archive.ArchivedPeriods;
import io.periodtables.model.Reading;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The archive's checks shared by {@link ArchiveITCase} and {@link S3ArchiveITCase}, and how they run the job. */
final class ArchiveCheck {
    private ArchiveCheck() {}

    /** Submits the run's job (parallelism 2, checkpoints every 200 ms), restored from {@code savepoint} unless null. */
    static JobClient submit(ReliabilityRun run, TestSource.Hooks hooks, String savepoint) throws Exception {
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

    /**
     * Cancels {@code job} unless it has ended: a test that fails before it stops its first run must
     * not leave that job holding the MiniCluster's slots, where the class's next test would wait for
     * them without end.
     */
    static void cancelIfRunning(JobClient job) {
        try {
            if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        } catch (Exception ended) {
            // the job has ended or is gone: nothing holds the slots; a test failure passes on as it was
        }
    }

    /**
     * Distinct on ({@code pk}, {@code sk}) each period folder is its table and the late folders the
     * late table, every input reading is one committed row, each period's marker counts what is
     * there, and retention's gate sees every period the input's watermark closed archived and the
     * last one, which only the end of the input closed, not. Returns what it read.
     */
    static Archived assertMatchesTables(ReliabilityRun run, ArchiveReader reader, Dynalite dynamoDb)
            throws IOException {
        TableSnapshot tables = run.snapshot(dynamoDb);
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
        return new Archived(tables, rows);
    }

    /** The tables and the archive's rows by folder, as the checks read them. */
    record Archived(TableSnapshot tables, Map<String, List<ArchiveRow>> rows) {}

    /** The periods of the run's period tables, in time order. */
    static List<Period> periods(ReliabilityRun run) {
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

    static long committedRows(ArchiveReader reader) throws IOException {
        long[] n = {0};
        for (String partition : reader.partitions()) {
            reader.rows(partition, row -> n[0]++);
        }
        return n[0];
    }
}
