package io.periodtables.bench.freshness;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.BenchMetrics;
import io.periodtables.bench.CpuClock;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.Tables;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.Kinesalite;
import io.periodtables.job.PeriodTablesTopology;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Freshness: the delay from a reading's {@code PutRecords} call to its item being readable in
 * its period table, at steady input rates. Kinesalite ({@link #SHARDS} shards), dynalite
 * (a node process), the production
 * topology (source {@code kinesis} from TRIM_HORIZON, default window and sink settings,
 * checkpoints every {@code checkpoint.interval}) on the benchmark's MiniCluster at parallelism 2.
 * One job per fire delay: a warm-up phase, then one phase per rate, each drained (every sample
 * found, or none for {@link #PATIENCE}) before the next. Task gauges sampled while feeding tell
 * where a backlog builds: a back-pressured source waits for the windows or the sink, a source
 * that is not back-pressured is the slow part itself.
 */
public final class FreshnessBench {
    /** Kinesis takes 1,000 records/s per shard: 5,000/s needs 5; one more leaves headroom. */
    static final int SHARDS = 6;

    static final double SAMPLES_PER_SECOND = 20;
    static final Duration POLL = Duration.ofMillis(50);
    /** A sample not found while no other is found this long is reported as never found. */
    static final Duration PATIENCE = Duration.ofMinutes(1);

    static final Duration GAUGE_INTERVAL = Duration.ofMillis(200);
    static final String SINK_LATENCY = "sink write latency ms";
    static final String SOURCE_BACKPRESSURE = "source back-pressured ms/s";
    /** The windows and the period sink's writer share a task, so one busy time covers both. */
    static final String WINDOWS_BUSY = "windows and sink busy ms/s";
    /** The extra run's trigger delay: its 1k/s phase against the default's shows the trigger's share. */
    static final Duration SHORT_FIRE_DELAY = Duration.ofMillis(50);

    /** {@code rates} readings/s, each for {@code phase} after a {@code warmUp} at the first rate. */
    public record Options(String command, List<Double> rates, Duration warmUp, Duration phase) {}

    /** One measured phase. */
    record Phase(
            Duration fireDelay,
            double targetRate,
            FreshnessFeeder.Fed fed,
            long written,
            long backlog,
            long fires,
            long firedReadings,
            Cpu cpu,
            Map<String, Double> gauges,
            List<Long> getRecordsNanos,
            FreshnessProbe.Result found) {

        double putRate() {
            return fed.records() / fed.seconds();
        }

        double writtenRate() {
            return written / fed.seconds();
        }

        /** Less than a second of input still unwritten when the phase's feeding ended. */
        boolean sustained() {
            return backlog < targetRate && putRate() >= 0.95 * targetRate;
        }
    }

    /** CPU seconds while feeding: the benchmark JVM (job, feeder, probe), kinesalite, dynalite. */
    record Cpu(double jvm, double kinesalite, double dynamoDb) {}

    private FreshnessBench() {}

    public static String run(Options options) throws Exception {
        String load = MachineFacts.loadAverage();
        List<Phase> phases = new ArrayList<>();
        try (Kinesalite kinesalite = Kinesalite.start();
                Dynalite dynamoDb = Tables.dynamoDb();
                BenchCluster cluster = new BenchCluster();
                KinesisClient kinesis = kinesalite.kinesisClient();
                DynamoDbClient reader = dynamoDb.syncClient()) {
            long node = ProcessHandle.current()
                    .descendants()
                    .filter(p -> p.info()
                            .arguments()
                            .map(a -> List.of(a).contains(String.valueOf(kinesalite.port())))
                            .orElse(false))
                    .findFirst()
                    .map(ProcessHandle::pid)
                    .orElse(kinesalite.pid());
            Environment env = new Environment(kinesalite, node, dynamoDb, cluster, kinesis, reader);
            phases.addAll(runJob(env, 0, Map.of(), options.rates(), options));
            phases.addAll(runJob(
                    env,
                    1,
                    Map.of(ConfigKeys.WINDOW_FIRE_DELAY.name(), SHORT_FIRE_DELAY.toString()),
                    options.rates().subList(0, 1),
                    options));
        }
        return FreshnessReport.section(options, load, phases);
    }

    /** What watches a job while it runs. */
    private record Probes(FreshnessProbe items, GaugeSampler gauges, GetRecordsTimer getRecords) {}

    private record Environment(
            Kinesalite kinesalite,
            long kinesalitePid,
            Dynalite dynamoDb,
            BenchCluster cluster,
            KinesisClient kinesis,
            DynamoDbClient reader) {}

    private static List<Phase> runJob(
            Environment env, int index, Map<String, String> window, List<Double> rates, Options options)
            throws Exception {
        String stream = "fresh-" + index;
        String arn = env.kinesalite().createStream(stream, SHARDS);
        Map<String, String> keys = new HashMap<>();
        keys.put("source", "kinesis");
        keys.put("kinesis.stream-arn", arn);
        keys.put("kinesis.endpoint", env.kinesalite().endpoint().toString());
        keys.put("kinesis.initial-position", "TRIM_HORIZON");
        keys.put("dynamodb.endpoint", env.dynamoDb().endpoint().toString());
        keys.put("tables.prefix", "fresh" + index);
        keys.putAll(window);
        PeriodTablesConfig config = ConfigLoader.fromMap(keys, true);
        Duration fireDelay = config.get(ConfigKeys.WINDOW_FIRE_DELAY);
        BenchMetrics.reset();
        JobID job = env.cluster()
                .submit(BenchCluster.graphOf(
                        config.get(ConfigKeys.CHECKPOINT_INTERVAL).toMillis(),
                        e -> PeriodTablesTopology.build(e, config, Clock.systemUTC())));
        List<Phase> phases = new ArrayList<>();
        long[] put = {0};
        try (FreshnessProbe probe = new FreshnessProbe(env.reader(), POLL);
                GetRecordsTimer getRecords = new GetRecordsTimer(env.kinesis(), stream);
                // task names as PeriodTablesTopology and InputSource give them
                GaugeSampler gauges = new GaugeSampler(
                        Map.of(
                                SINK_LATENCY, () -> BenchMetrics.gaugeMean(UserMetrics.AVG_SEND_LATENCY_MS),
                                SOURCE_BACKPRESSURE,
                                        () -> BenchMetrics.gaugeMean("backPressuredTimeMsPerSecond", "Source: Kinesis"),
                                WINDOWS_BUSY, () -> BenchMetrics.gaugeMean("busyTimeMsPerSecond", "Period windows")),
                        GAUGE_INTERVAL)) {
            Probes probes = new Probes(probe, gauges, getRecords);
            Phase warmUp = phase(env, stream, config, fireDelay, rates.get(0), options.warmUp(), probes, put);
            BenchLog.log("freshness warm-up (job start, table creation): " + FreshnessReport.line(warmUp));
            for (double rate : rates) {
                Phase phase = phase(env, stream, config, fireDelay, rate, options.phase(), probes, put);
                BenchLog.log("freshness: " + FreshnessReport.line(phase));
                phases.add(phase);
            }
        } finally {
            env.cluster().miniCluster().cancelJob(job).get(1, TimeUnit.MINUTES);
            env.cluster().miniCluster().requestJobResult(job).get(1, TimeUnit.MINUTES);
            // each run on a stream of its own (kinesalite alone allowed 10 shards an account; the layer 20,000)
            env.kinesis().deleteStream(b -> b.streamName(stream));
            env.kinesis().waiter().waitUntilStreamNotExists(b -> b.streamName(stream));
        }
        return phases;
    }

    private static Phase phase(
            Environment env,
            String stream,
            PeriodTablesConfig config,
            Duration fireDelay,
            double rate,
            Duration duration,
            Probes probes,
            long[] putSoFar)
            throws Exception {
        long written0 = BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN);
        long fires0 = BenchMetrics.sum(UserMetrics.WINDOW_FIRES);
        long fired0 = BenchMetrics.sum(UserMetrics.WINDOW_FIRED_READINGS);
        CpuClock jvm = new CpuClock();
        double node0 = Dynalite.cpuSecondsOf(env.kinesalitePid());
        double dynamoDb0 = env.dynamoDb().cpuSeconds();
        probes.gauges().take();
        probes.getRecords().take();
        FreshnessFeeder.Fed fed = new FreshnessFeeder(
                        env.kinesis(), stream, config, rate, duration, SAMPLES_PER_SECOND, probes.items())
                .feed();
        long written1 = BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN);
        Map<String, Double> means = probes.gauges().take();
        List<Long> getRecordsNanos = probes.getRecords().take();
        Cpu cpu = new Cpu(
                jvm.cpuSeconds(),
                Dynalite.cpuSecondsOf(env.kinesalitePid()) - node0,
                env.dynamoDb().cpuSeconds() - dynamoDb0);
        long fires = BenchMetrics.sum(UserMetrics.WINDOW_FIRES) - fires0;
        long fired = BenchMetrics.sum(UserMetrics.WINDOW_FIRED_READINGS) - fired0;
        putSoFar[0] += fed.records();
        FreshnessProbe.Result found = probes.items().drain(PATIENCE);
        return new Phase(
                fireDelay,
                rate,
                fed,
                written1 - written0,
                putSoFar[0] - written1,
                fires,
                fired,
                cpu,
                means,
                getRecordsNanos,
                found);
    }
}
