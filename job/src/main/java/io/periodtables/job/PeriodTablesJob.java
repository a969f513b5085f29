package io.periodtables.job;

import com.amazonaws.services.kinesisanalytics.runtime.KinesisAnalyticsRuntime;
import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's entry point, the main class of the shaded jar for Managed Service for Apache Flink.
 * Configuration: defaults &lt; {@code --config file} &lt; the application's runtime property
 * groups (on MSF) &lt; {@code --key value} arguments. A bad configuration stops the job before
 * anything runs, with one line naming the key.
 */
public final class PeriodTablesJob {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodTablesJob.class);

    /** Where MSF puts the application's runtime properties. */
    static final Path MSF_PROPERTIES = Path.of("/etc/flink/application_properties.json");

    private PeriodTablesJob() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        boolean local = env instanceof LocalStreamEnvironment;
        if (local) {
            // A plain JVM runs the job on a MiniCluster of its own: keep its sockets on loopback.
            env = StreamExecutionEnvironment.getExecutionEnvironment(LoopbackFlink.configuration("0"));
        }
        PeriodTablesConfig config = configure(args, local);
        try {
            PeriodTablesTopology.build(env, config, Clock.systemUTC());
        } catch (ConfigException e) { // archive.path without a file system for its scheme
            LOG.error(e.getMessage());
            throw e;
        }
        env.execute("period-tables");
    }

    static PeriodTablesConfig configure(String[] args, boolean local) throws IOException {
        Map<String, Properties> groups =
                !local && Files.exists(MSF_PROPERTIES) ? KinesisAnalyticsRuntime.getApplicationProperties() : Map.of();
        PeriodTablesConfig config;
        try {
            config = ConfigLoader.load(args, groups, local);
        } catch (ConfigException e) {
            LOG.error(e.getMessage());
            throw e;
        }
        if (config.startsEmbeddedDynamoDb()) {
            throw new ConfigException(
                    ConfigKeys.DYNAMODB_EMBEDDED.name(),
                    "Invalid configuration: dynamodb.embedded = 'true' needs the local runner (./run-local);"
                            + " set dynamodb.endpoint or dynamodb.embedded=false to run the job's main");
        }
        LOG.info("period-tables configuration:\n{}", config.describe());
        return config;
    }
}
