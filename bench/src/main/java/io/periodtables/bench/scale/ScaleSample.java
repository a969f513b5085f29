package io.periodtables.bench.scale;

import io.periodtables.bench.BenchCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;

/** One completed checkpoint: where the input was at its trigger, its sizes and duration. */
record ScaleSample(String part, long id, long simulatedMillis, long fullBytes, long incrementalBytes, long millis) {
    String tsv() {
        return String.join(
                "\t",
                part,
                Long.toString(id),
                Long.toString(simulatedMillis),
                Long.toString(fullBytes),
                Long.toString(incrementalBytes),
                Long.toString(millis));
    }

    static ScaleSample of(String line) {
        String[] f = line.split("\t");
        return new ScaleSample(
                f[0],
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                Long.parseLong(f[5]));
    }

    /** The samples of a file written by an earlier run ({@code bench/target/scale-samples.tsv}); none for null. */
    static List<ScaleSample> read(Path file) throws IOException {
        return file == null
                ? List.of()
                : Files.readAllLines(file).stream()
                        .filter(l -> !l.isBlank())
                        .map(ScaleSample::of)
                        .toList();
    }

    /** Adds the completed checkpoints the statistics hold (the newest ten) that are not known yet. */
    static void collect(
            BenchCluster cluster,
            JobID id,
            String name,
            ConcurrentSkipListMap<Long, Long> progress,
            Map<Long, ScaleSample> completed) {
        CheckpointStatsSnapshot stats;
        try {
            AccessExecutionGraph graph =
                    cluster.miniCluster().getExecutionGraph(id).get();
            stats = graph.getCheckpointStatsSnapshot();
        } catch (Exception ended) {
            return; // the job is gone from the dispatcher: what was collected is all there is
        }
        if (stats == null) {
            return;
        }
        for (AbstractCheckpointStats c : stats.getHistory().getCheckpoints()) {
            if (c.getStatus() != CheckpointStatsStatus.COMPLETED || completed.containsKey(c.getCheckpointId())) {
                continue;
            }
            Map.Entry<Long, Long> at = progress.floorEntry(c.getTriggerTimestamp());
            long simulated = at == null ? progress.firstEntry().getValue() : at.getValue();
            completed.put(
                    c.getCheckpointId(),
                    new ScaleSample(
                            name,
                            c.getCheckpointId(),
                            simulated,
                            c.getStateSize(),
                            c.getCheckpointedSize(),
                            c.getEndToEndDuration()));
        }
    }
}
