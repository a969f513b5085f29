package io.periodtables.bench.kinesis;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.MachineFacts;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Kinesalite;
import io.periodtables.emulators.KinesisLayer;
import io.periodtables.emulators.PollingConsumer;
import io.periodtables.job.kinesis.KinesisInput;
import io.periodtables.model.SinkRecord;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/**
 * How fast the job's Kinesis source reads a backlog under Kinesis's read limits (the Kinesis
 * fidelity layer in front of kinesalite: 5 GetRecords and 2 MiB a second per shard, shared by every
 * consumer): the source alone ({@link KinesisInput#source}, parsing every record, into a discarding
 * sink, so neither DynamoDB nor the windows set the pace), on a 2-shard stream with
 * {@value #PER_SHARD} readings of about 1 KB per shard, once alone and once beside a second
 * consumer application that reads the same backlog as the Kinesis Client Library polls (one
 * GetRecords a second per shard). Interleaved, {@code runs} of each. The read rate is the job's
 * bytes over the time from its first record to its last, per shard, as a share of 2 MiB/s.
 */
public final class KinesisBackfillBench {
    static final int PER_SHARD = 40_000;
    private static final String PADDING = "x".repeat(960);
    private static final double LIMIT_BYTES_PER_SECOND = 2.0 * 1024 * 1024;
    /** Records the job's source has emitted; one MiniCluster in this JVM. */
    private static final AtomicLong READ = new AtomicLong();

    /** One measured run. */
    record Run(
            String contender,
            double seconds,
            long jobBytes,
            long refusedGetRecords,
            long servedGetRecords,
            long secondConsumerRecords) {
        double shareOfLimit() {
            return jobBytes / seconds / 2 / LIMIT_BYTES_PER_SECOND;
        }
    }

    private KinesisBackfillBench() {}

    public static String run(int runs) throws Exception {
        String load = MachineFacts.loadAverage();
        List<Run> measured = new ArrayList<>();
        try (Kinesalite kinesalite = Kinesalite.start();
                BenchCluster cluster = new BenchCluster()) {
            int stream = 0;
            for (int run = 0; run < runs; run++) {
                for (String contender : List.of("alone", "beside a second consumer")) {
                    measured.add(measure(kinesalite, cluster, "backfill-" + stream++, contender));
                    BenchLog.log(measured.get(measured.size() - 1).toString());
                }
            }
        }
        return section(load, measured);
    }

    private static Run measure(Kinesalite kinesalite, BenchCluster cluster, String stream, String contender)
            throws Exception {
        String arn = kinesalite.createStream(stream, 2);
        KinesisLayer layer = kinesalite.layer();
        // Putting the backlog at the put limit (1 MiB a second per shard) measures nothing here.
        layer.limits(EnumSet.of(KinesisLayer.Limit.READS, KinesisLayer.Limit.ITERATORS));
        long backlogBytes = putBacklog(kinesalite, stream);
        layer.reset();
        READ.set(0);
        PollingConsumer other = contender.equals("alone") ? null : PollingConsumer.start(kinesalite, stream);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(BenchCluster.PARALLELISM);
        PeriodTablesConfig config = config(arn, kinesalite);
        env.fromSource(
                        KinesisInput.source(config, new KinesisInput.ParsingRecordSchema(config)),
                        WatermarkStrategy.noWatermarks(),
                        "kinesis")
                .map(new Count())
                .sinkTo(new DiscardingSink<>());
        JobID job = cluster.submit(env.getStreamGraph().getJobGraph());
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        long start = 0;
        while (READ.get() < 2L * PER_SHARD && System.nanoTime() < deadline) {
            if (start == 0 && READ.get() > 0) {
                start = System.nanoTime(); // from the first record: the job's start is not the reader's pace
            }
            Thread.sleep(20);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (other != null) {
            other.close();
        }
        cluster.miniCluster().cancelJob(job).get(1, TimeUnit.MINUTES);
        cluster.miniCluster().requestJobResult(job).get(1, TimeUnit.MINUTES);
        if (READ.get() < 2L * PER_SHARD) {
            throw new IllegalStateException("the source read " + READ.get() + " of " + 2 * PER_SHARD + " records");
        }
        long jobBytes = layer.served("getRecordsBytes") - (other == null ? 0 : other.bytes());
        return new Run(
                contender,
                seconds,
                Math.min(jobBytes, backlogBytes),
                layer.refused("refusedGetRecords"),
                layer.served("getRecords"),
                other == null ? 0 : other.records());
    }

    /** {@value #PER_SHARD} readings of about 1 KB per shard; returns their bytes (data and keys). */
    private static long putBacklog(Kinesalite kinesalite, String stream) {
        long bytes = 0;
        List<String> hashKeys = List.of("0", BigInteger.ONE.shiftLeft(127).toString());
        Instant t0 = Instant.parse("2025-06-01T00:00:00Z");
        try (KinesisClient kinesis = kinesalite.kinesisClient()) {
            for (int s = 0; s < hashKeys.size(); s++) {
                List<PutRecordsRequestEntry> batch = new ArrayList<>();
                for (int i = 0; i < PER_SHARD; i++) {
                    String json = "{\"deviceId\":\"dev-" + s + "-" + (i % 100) + "\",\"timestamp\":\""
                            + t0.plusMillis(i * 200L) + "\",\"v\":" + i + ",\"pad\":\"" + PADDING + "\"}";
                    bytes += json.length() + 1;
                    batch.add(PutRecordsRequestEntry.builder()
                            .partitionKey("p")
                            .explicitHashKey(hashKeys.get(s))
                            .data(SdkBytes.fromString(json, StandardCharsets.UTF_8))
                            .build());
                    if (batch.size() == 250) {
                        List<PutRecordsRequestEntry> records = List.copyOf(batch);
                        kinesis.putRecords(b -> b.streamName(stream).records(records));
                        batch.clear();
                    }
                }
            }
        }
        return bytes;
    }

    private static PeriodTablesConfig config(String arn, Kinesalite kinesalite) {
        return ConfigLoader.fromMap(
                Map.of(
                        "source",
                        "kinesis",
                        "kinesis.stream-arn",
                        arn,
                        "kinesis.endpoint",
                        kinesalite.endpoint().toString(),
                        "kinesis.initial-position",
                        "TRIM_HORIZON"),
                false);
    }

    private static String section(String load, List<Run> runs) {
        StringBuilder md = new StringBuilder("## 18. A Kinesis backfill under the read limits\n\n");
        md.append("The job's Kinesis source alone (our reader, parsing every record, into a discarding sink) reads a ")
                .append("2-shard backlog of ")
                .append(PER_SHARD)
                .append(" readings of about 1 KB per shard through the Kinesis fidelity layer (5 GetRecords and ")
                .append("2 MiB a second per shard, shared by every consumer), once alone and once beside a second ")
                .append("consumer that polls each shard once a second from TRIM_HORIZON, as the Kinesis Client")
                .append(" Library does; interleaved, parallelism 2, one MiniCluster in the benchmark JVM. Load"
                        + " average at"
                        + " start ")
                .append(load)
                .append(". Read rate: the job's bytes over the time from its first record to its last, per shard, as")
                .append(" a share of 2 MiB/s (`./bench/run --only kinesis-backfill`). A first GetRecords of a backlog")
                .append(" returns up to 10 MiB at once and holds the shard 5 s afterwards, so the time from the first")
                .append(" record undercounts by up to 5 s a shard: a share a little above 1 is the limit met.\n\n");
        md.append("| contender | seconds | MiB/s per shard | share of 2 MiB/s | GetRecords served | refused |\n")
                .append("|---|---|---|---|---|---|\n");
        for (Run run : runs) {
            md.append(String.format(
                    "| %s | %.1f | %.2f | %.2f | %d | %d |%n",
                    run.contender(),
                    run.seconds(),
                    run.jobBytes() / run.seconds() / 2 / (1024 * 1024),
                    run.shareOfLimit(),
                    run.servedGetRecords(),
                    run.refusedGetRecords()));
        }
        return md.toString();
    }

    /** Counts the source's records for the run's stop condition. */
    private static final class Count implements MapFunction<SinkRecord, SinkRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkRecord map(SinkRecord record) {
            READ.incrementAndGet();
            return record;
        }
    }
}
