package io.periodtables.bench;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.emulators.Dynalite;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import io.periodtables.sink.PeriodTableSink;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.aws.config.AWSConfigConstants;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.connector.dynamodb.sink.DynamoDbSink;
import org.apache.flink.runtime.jobgraph.JobGraph;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The contenders of the end-to-end benchmark, each writing the same {@code n} seed readings
 * (3 hourly periods, 4 shards, parallelism 2) into dynalite (a node process of its own):
 * {@value #OURS} ({@code PeriodTableSink} on pre-built readings, 3 tables), {@value #STOCK}
 * (the stock {@code DynamoDbSink}, same items, one table), {@value #STOCK_PARSE} (the same, its
 * source parsing the full job's JSON records with the job's parser), {@value #RAW} (an SDK
 * {@code BatchWriteItem} loop, one table) and {@value #JOB} (the whole job from the JSON records
 * of the same readings: parse, watermarks, period windows, period sink, rotation). Every run gets fresh tables,
 * is checked for the item count, and its tables are deleted afterwards.
 */
public final class Contenders {
    public static final String OURS = "our-sink";
    public static final String STOCK = "stock-sink";
    public static final String RAW = "raw-sdk";
    /** The stock sink given the readings parsed from their JSON records by the job's parser, in its source. */
    public static final String STOCK_PARSE = "stock-sink-parse";

    public static final String JOB = "full-job";
    public static final String JOB_ROLLUPS = "full-job-rollups";
    /** The grains of {@link #JOB_ROLLUPS}: {@code BENCH_ROLLUPS_EVERY} (environment), by default two. */
    public static final String ROLLUPS_EVERY = System.getenv().getOrDefault("BENCH_ROLLUPS_EVERY", "PT1M,PT1H");

    /** Checkpoint interval of the Flink contenders: the job's default. */
    public static final long CHECKPOINT_MILLIS = 10_000;

    static final int DEVICES = 100;
    static final Duration SPAN = Duration.ofMinutes(150);

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private final BenchCluster cluster;
    private final Dynalite dynamoDb;
    private final DynamoDbClient admin;
    private final int n;
    private final Instant start;
    private MeasuredWindow window = MeasuredWindow.NONE;

    /** Told when a run's measured window opens and closes: a profiler's start and stop. */
    public interface MeasuredWindow {
        MeasuredWindow NONE = new MeasuredWindow() {
            @Override
            public void opened() {}

            @Override
            public void closed() {}
        };

        /** Right before the run's clocks start. */
        void opened() throws Exception;

        /** Right after the run's clocks are read. */
        void closed() throws Exception;
    }

    /** These contenders, each run's measured window told to {@code window}. */
    public Contenders measuredBy(MeasuredWindow window) {
        this.window = window;
        return this;
    }

    public Contenders(BenchCluster cluster, Dynalite dynamoDb, DynamoDbClient admin, int n) {
        this.cluster = cluster;
        this.dynamoDb = dynamoDb;
        this.admin = admin;
        this.n = n;
        this.start = BenchConfigs.fleetStart(4);
    }

    /** The configuration of one run, with a table prefix of its own. */
    public PeriodTablesConfig config(String contender) {
        String prefix = "b" + PREFIXES.incrementAndGet() + contender.replace("-", "");
        return BenchConfigs.load(BenchConfigs.fleet(prefix, dynamoDb.endpoint(), n, DEVICES, start, SPAN));
    }

    /** The fleet whose readings every contender writes (the full job its JSON records). */
    public FleetReadings fleet() {
        return new FleetReadings(config("x"), start);
    }

    public Measurement ourSink(int run) throws Exception {
        PeriodTablesConfig config = config(OURS);
        for (String table : periodTables(config)) {
            Tables.create(admin, table);
        }
        JobGraph graph = BenchCluster.graphOf(
                CHECKPOINT_MILLIS,
                env -> env.fromSource(
                                new DataGeneratorSource<>(
                                        new PrebuiltReadings.AsSinkRecords(), n, TypeInformation.of(SinkRecord.class)),
                                WatermarkStrategy.noWatermarks(),
                                "Readings")
                        .sinkTo(PeriodTableSink.builder().config(config).build()));
        return timed(OURS, run, config, () -> cluster.run(graph));
    }

    public Measurement stockSink(int run) throws Exception {
        return stock(STOCK, run, config -> new PrebuiltReadings.AsReadings(), "Readings");
    }

    /**
     * {@link #stockSink} whose source parses the JSON records the full job reads with the job's
     * parser: the stock sink with the input a user of it must parse too.
     */
    public Measurement stockSinkParsing(int run) throws Exception {
        return stock(STOCK_PARSE, run, PrebuiltReadings.ParsedReadings::new, "Parsed records");
    }

    /** The stock sink into a table of its own, fed by the readings {@code readings} generates. */
    private Measurement stock(
            String contender,
            int run,
            java.util.function.Function<PeriodTablesConfig, GeneratorFunction<Long, Reading>> readings,
            String sourceName)
            throws Exception {
        PeriodTablesConfig config = config(contender);
        String table = config.get(TableKeys.TABLES_PREFIX) + "_stock";
        Tables.create(admin, table);
        GeneratorFunction<Long, Reading> generator = readings.apply(config);
        JobGraph graph = BenchCluster.graphOf(
                CHECKPOINT_MILLIS,
                env -> env.fromSource(
                                new DataGeneratorSource<>(generator, n, TypeInformation.of(Reading.class)),
                                WatermarkStrategy.noWatermarks(),
                                sourceName)
                        .sinkTo(DynamoDbSink.<Reading>builder()
                                .setTableName(table)
                                .setElementConverter(new StockItemConverter(config))
                                .setDynamoDbProperties(stockClientProperties())
                                .build()));
        return timed(contender, run, config, () -> cluster.run(graph));
    }

    public Measurement rawLoop(int run, int inFlight) throws Exception {
        PeriodTablesConfig config = config(RAW);
        String table = config.get(TableKeys.TABLES_PREFIX) + "_raw";
        Tables.create(admin, table);
        Reading[] readings = Arrays.copyOf(PrebuiltReadings.all(), n);
        return timed(RAW + "-" + inFlight, run, config, () -> RawBatchLoop.write(config, table, readings, inFlight));
    }

    /** The full job with rollups ({@code rollups.every} = {@link #ROLLUPS_EVERY}), against {@link #fullJob}. */
    public Measurement fullJobWithRollups(int run) throws Exception {
        Map<String, String> keys = BenchConfigs.fleet(
                "b" + PREFIXES.incrementAndGet() + JOB_ROLLUPS.replace("-", ""),
                dynamoDb.endpoint(),
                n,
                DEVICES,
                start,
                SPAN);
        keys.put("rollups.every", ROLLUPS_EVERY);
        PeriodTablesConfig config = BenchConfigs.load(keys);
        JobGraph graph = BenchCluster.graphOf(
                CHECKPOINT_MILLIS,
                env -> PeriodTablesTopology.build(env, config, PrebuiltReadings.jsonRecords(config, n)));
        return timed(JOB_ROLLUPS, run, config, () -> cluster.run(graph));
    }

    public Measurement fullJob(int run) throws Exception {
        PeriodTablesConfig config = config(JOB);
        JobGraph graph = BenchCluster.graphOf(
                CHECKPOINT_MILLIS,
                env -> PeriodTablesTopology.build(env, config, PrebuiltReadings.jsonRecords(config, n)));
        return timed(JOB, run, config, () -> cluster.run(graph));
    }

    /** Client properties of the stock sink: the connector's keys for endpoint, region and static credentials. */
    private Properties stockClientProperties() {
        Properties p = new Properties();
        p.setProperty(AWSConfigConstants.AWS_REGION, "us-east-1");
        p.setProperty(AWSConfigConstants.AWS_ENDPOINT, dynamoDb.endpoint().toString());
        p.setProperty(AWSConfigConstants.AWS_CREDENTIALS_PROVIDER, "BASIC");
        p.setProperty(AWSConfigConstants.AWS_ACCESS_KEY_ID, "local");
        p.setProperty(AWSConfigConstants.AWS_SECRET_ACCESS_KEY, "local");
        return p;
    }

    private List<String> periodTables(PeriodTablesConfig config) {
        List<String> tables = new ArrayList<>();
        for (long t = start.toEpochMilli();
                t < start.plus(SPAN).toEpochMilli();
                t += Duration.ofHours(1).toMillis()) {
            tables.add(config.naming().periodTableOf(Instant.ofEpochMilli(t)));
        }
        String last = config.naming().periodTableOf(start.plus(SPAN));
        if (!tables.contains(last)) {
            tables.add(last);
        }
        return tables;
    }

    private interface Run {
        void run() throws Exception;
    }

    private Measurement timed(String contender, int run, PeriodTablesConfig config, Run body) throws Exception {
        BenchMetrics.reset();
        System.gc();
        double serverCpu = dynamoDb.cpuSeconds();
        window.opened();
        CpuClock clock = new CpuClock();
        // written readings: the stock sink's sent records (its connector counts them as it sends a
        // batch), the period sink's acknowledged ones (our sink, the full job); the raw loop none
        String counter = contender.equals(STOCK) || contender.equals(STOCK_PARSE)
                ? "numRecordsSend"
                : contender.startsWith(RAW) ? null : UserMetrics.RECORDS_WRITTEN;
        WriteProgress progress = new WriteProgress(n, () -> counter == null ? 0 : BenchMetrics.sum(counter));
        body.run();
        WriteProgress.Phases phases =
                counter == null ? WriteProgress.Phases.UNKNOWN : progress.phases(System.nanoTime());
        progress.close();
        Measurement m = new Measurement(
                contender,
                run,
                n,
                clock.wallSeconds(),
                clock.cpuSeconds(),
                clock.jitSeconds(),
                dynamoDb.cpuSeconds() - serverCpu,
                phases);
        window.closed();
        BenchLog.log(contender + " sink counters: " + sinkCounters() + " of " + BenchMetrics.seen());
        String prefix = config.get(TableKeys.TABLES_PREFIX);
        long items = Tables.countWithPrefix(admin, prefix);
        Tables.deleteWithPrefix(admin, prefix);
        if (items != n) {
            throw new IllegalStateException(contender + " run " + run + " left " + items + " items, expected " + n);
        }
        return m;
    }

    /** The period sink's counters of the last run (zero for the other contenders). */
    static Map<String, Long> sinkCounters() {
        Map<String, Long> counters = new LinkedHashMap<>();
        for (String name : new String[] {
            UserMetrics.RECORDS_WRITTEN,
            UserMetrics.BATCHES,
            UserMetrics.UNPROCESSED_ITEMS_RETRIED,
            UserMetrics.THROTTLED_REQUESTS,
            UserMetrics.FAILED_REQUESTS,
            UserMetrics.BISECTIONS,
            UserMetrics.MISSING_TABLE_FALLBACKS
        }) {
            counters.put(name, BenchMetrics.sum(name));
        }
        return counters;
    }
}
