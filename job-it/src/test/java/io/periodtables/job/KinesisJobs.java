package io.periodtables.job;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.Kinesalite;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The production job reading a kinesalite stream from TRIM_HORIZON, as the Kinesis tests start it. */
final class KinesisJobs {
    private KinesisJobs() {}

    /** The job's configuration: the stream, the emulators, a prefix and a period, and {@code more} keys. */
    static PeriodTablesConfig config(
            Kinesalite kinesalite, Dynalite dynamoDb, String arn, String prefix, String period, String... more)
            throws IOException {
        List<String> args = new ArrayList<>(List.of(
                "--source",
                "kinesis",
                "--kinesis.stream-arn",
                arn,
                "--kinesis.endpoint",
                kinesalite.endpoint().toString(),
                "--kinesis.initial-position",
                "TRIM_HORIZON",
                "--dynamodb.endpoint",
                dynamoDb.endpoint().toString(),
                "--tables.prefix",
                prefix,
                "--tables.period",
                period));
        args.addAll(List.of(more));
        return PeriodTablesJob.configure(args.toArray(new String[0]), false);
    }

    /** Submits the topology, checkpointing every second, from {@code savepoint} when given. */
    static JobClient submit(PeriodTablesConfig config, int parallelism, String savepoint) throws Exception {
        return submit(StreamExecutionEnvironment.getExecutionEnvironment(), config, parallelism, savepoint);
    }

    /** As {@link #submit(PeriodTablesConfig, int, String)}, without restarts: any failure fails the job. */
    static JobClient submitWithoutRestarts(PeriodTablesConfig config, int parallelism, String savepoint)
            throws Exception {
        Configuration noRestarts = new Configuration();
        noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        return submit(StreamExecutionEnvironment.getExecutionEnvironment(noRestarts), config, parallelism, savepoint);
    }

    private static JobClient submit(
            StreamExecutionEnvironment env, PeriodTablesConfig config, int parallelism, String savepoint)
            throws Exception {
        env.setParallelism(parallelism);
        env.enableCheckpointing(1000);
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        StreamGraph graph = env.getStreamGraph();
        if (savepoint != null) {
            graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
        }
        return env.executeAsync(graph);
    }

    /** Items per non-empty table of the prefix. */
    static Map<String, Integer> counts(DynamoDbClient dynamo, TableNaming naming) {
        Map<String, Integer> counts = new TreeMap<>();
        TableContents.nonEmptyTables(dynamo, naming).forEach((table, items) -> counts.put(table, items.size()));
        return counts;
    }
}
