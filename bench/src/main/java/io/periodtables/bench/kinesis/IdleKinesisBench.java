package io.periodtables.bench.kinesis;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.CpuClock;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.Tables;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.CountingProxy;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.Kinesalite;
import io.periodtables.job.PeriodTablesTopology;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kinesis.source.KinesisStreamsSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * What an idle Kinesis source costs: a 2-shard kinesalite stream with no data, read by
 * {@code stock-source} (connector 4.3.0's {@code KinesisStreamsSource} alone into a discarding
 * sink: the job's source before it paced empty shards) and by {@code job} (the production
 * topology, source {@code kinesis}: our paced source and everything behind it), at parallelism 1
 * and 2. After {@link #SETTLE}, over {@link #WINDOW}: GetRecords per second and shard, counted at
 * the emulator by a {@link CountingProxy}; CPU of this JVM (the MiniCluster) and of kinesalite.
 */
public final class IdleKinesisBench {
    static final Duration SETTLE = Duration.ofSeconds(10);
    static final Duration WINDOW = Duration.ofSeconds(20);

    /** One measured run. */
    record Run(
            String contender,
            int parallelism,
            Map<String, Long> getRecordsByShard,
            double seconds,
            double jvmCpuSeconds,
            double kinesaliteCpuSeconds) {}

    private IdleKinesisBench() {}

    public static String run() throws Exception {
        String load = MachineFacts.loadAverage();
        List<Run> runs = new ArrayList<>();
        Run baseline;
        try (Kinesalite kinesalite = Kinesalite.start();
                CountingProxy proxy = CountingProxy.start(kinesalite.endpoint());
                Dynalite dynamoDb = Tables.dynamoDb();
                BenchCluster cluster = new BenchCluster()) {
            long node = ProcessHandle.current()
                    .descendants()
                    .filter(p -> p.info()
                            .arguments()
                            .map(a -> List.of(a).contains(String.valueOf(kinesalite.port())))
                            .orElse(false))
                    .findFirst()
                    .orElseThrow()
                    .pid();
            baseline = measure("no job", 0, proxy, node);
            int stream = 0;
            for (String contender : List.of("stock-source", "job")) {
                for (int parallelism : List.of(1, 2)) {
                    String arn = kinesalite.createStream("idle-" + stream++, 2);
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
                    env.setParallelism(parallelism);
                    if (contender.equals("job")) {
                        PeriodTablesTopology.build(
                                env, jobConfig(arn, proxy.endpoint(), dynamoDb.endpoint(), stream), Clock.systemUTC());
                    } else {
                        env.fromSource(
                                        stockSource(arn, proxy.endpoint()),
                                        WatermarkStrategy.noWatermarks(),
                                        "stock",
                                        Types.STRING)
                                .sinkTo(new DiscardingSink<>());
                    }
                    JobID job = cluster.submit(env.getStreamGraph().getJobGraph());
                    Thread.sleep(SETTLE.toMillis());
                    Run run = measure(contender, parallelism, proxy, node);
                    cluster.miniCluster().cancelJob(job).get(1, TimeUnit.MINUTES);
                    cluster.miniCluster().requestJobResult(job).get(1, TimeUnit.MINUTES);
                    BenchLog.log(run.toString());
                    runs.add(run);
                }
            }
        }
        return section(load, baseline, runs);
    }

    private static Run measure(String contender, int parallelism, CountingProxy proxy, long node)
            throws InterruptedException {
        Map<String, Long> before = proxy.getRecordsByShard();
        double nodeBefore = Dynalite.cpuSecondsOf(node);
        CpuClock clock = new CpuClock();
        Thread.sleep(WINDOW.toMillis());
        double seconds = clock.wallSeconds();
        double jvm = clock.cpuSeconds();
        double nodeCpu = Dynalite.cpuSecondsOf(node) - nodeBefore;
        Map<String, Long> calls = proxy.getRecordsByShard();
        calls.replaceAll((shard, n) -> n - before.getOrDefault(shard, 0L));
        calls.values().removeIf(n -> n == 0);
        return new Run(contender, parallelism, calls, seconds, jvm, nodeCpu);
    }

    private static PeriodTablesConfig jobConfig(String arn, URI kinesis, URI dynamoDb, int stream) {
        return ConfigLoader.fromMap(
                Map.of(
                        "source",
                        "kinesis",
                        "kinesis.stream-arn",
                        arn,
                        "kinesis.endpoint",
                        kinesis.toString(),
                        "kinesis.initial-position",
                        "TRIM_HORIZON",
                        "dynamodb.endpoint",
                        dynamoDb.toString(),
                        "tables.prefix",
                        "idle" + stream),
                false);
    }

    /** The connector's source configured as the job configured it before (see KinesisInput). */
    private static KinesisStreamsSource<String> stockSource(String arn, URI kinesis) {
        Configuration source = new Configuration();
        source.setString("aws.region", Kinesalite.REGION.id());
        source.setString("aws.endpoint", kinesis.toString());
        source.setString("aws.credentials.provider", "BASIC");
        source.setString("aws.credentials.provider.basic.accesskeyid", "local");
        source.setString("aws.credentials.provider.basic.secretkey", "local");
        source.setString("flink.stream.initpos", "TRIM_HORIZON");
        return KinesisStreamsSource.<String>builder()
                .setStreamArn(arn)
                .setSourceConfig(source)
                .setDeserializationSchema(new SimpleStringSchema())
                .build();
    }

    private static String section(String load, Run baseline, List<Run> runs) {
        StringBuilder md = new StringBuilder("## 8. Idle Kinesis source\n\n");
        md.append("A 2-shard kinesalite stream with no data, read by connector 4.3.0's `KinesisStreamsSource`")
                .append(" alone into a discarding sink (`stock-source`, the job's source before it paced empty")
                .append(" shards) and by the production topology (`job`: our paced source, windows, sink, rotation),")
                .append(" one MiniCluster in the benchmark JVM; measured over ")
                .append(WINDOW.toSeconds())
                .append(" s after ")
                .append(SETTLE.toSeconds())
                .append(" s of settling. GetRecords counted at the emulator (a loopback proxy ")
                .append("that follows each shard's iterators). CPU in % of one core; the benchmark JVM with no job: ")
                .append(percent(baseline.jvmCpuSeconds(), baseline.seconds()))
                .append(" %, kinesalite ")
                .append(percent(baseline.kinesaliteCpuSeconds(), baseline.seconds()))
                .append(" %. Load average at start ")
                .append(load)
                .append(".\n\n");
        md.append("| contender | parallelism | GetRecords/s per shard | JVM CPU % | kinesalite CPU %"
                + " |\n|---|---|---|---|---|\n");
        for (Run run : runs) {
            List<String> perShard = new ArrayList<>();
            run.getRecordsByShard().values().forEach(n -> perShard.add(String.format("%.1f", n / run.seconds())));
            md.append("| ")
                    .append(run.contender())
                    .append(" | ")
                    .append(run.parallelism())
                    .append(" | ")
                    .append(String.join(", ", perShard))
                    .append(" | ")
                    .append(percent(run.jvmCpuSeconds(), run.seconds()))
                    .append(" | ")
                    .append(percent(run.kinesaliteCpuSeconds(), run.seconds()))
                    .append(" |\n");
        }
        return md.toString();
    }

    private static String percent(double cpuSeconds, double seconds) {
        return String.format("%.0f", 100 * cpuSeconds / seconds);
    }
}
