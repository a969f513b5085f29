package io.periodtables.job;

import com.amazonaws.services.kinesisanalytics.runtime.KinesisAnalyticsRuntime;
import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKey;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 *
 * <p>{@code --validate FILE [--key value ...]} runs no job: it reads FILE as MSF's runtime
 * properties (the JSON list of {@code PropertyGroupId}/{@code PropertyMap} that MSF gives the job),
 * with the arguments on top, and prints each problem the job would stop at, one line each; exit
 * status 0 when the job would start, 1 when not, 2 when FILE cannot be read.
 */
public final class PeriodTablesJob {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodTablesJob.class);

    /** Where MSF puts the application's runtime properties. */
    static final Path MSF_PROPERTIES = Path.of("/etc/flink/application_properties.json");

    private PeriodTablesJob() {}

    /**
     * Keys (or their prefixes) that only the local run reads: MSF sets parallelism and checkpointing
     * itself, and has no fleet generator or embedded emulator (docs/operations.md, the template's
     * parameters). {@code --validate} leaves them out of what it prints.
     */
    static final List<String> LOCAL_RUN_KEYS =
            List.of("parallelism", "checkpoint.interval", "generator.", "dynamodb.embedded", "dynamodb.limits");

    /** The argument that checks a runtime properties file instead of running the job. */
    static final String VALIDATE = "--validate";

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(VALIDATE)) {
            System.exit(validate(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
        }
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
        PeriodTablesTopology.logArchive(config);
        env.execute("period-tables");
    }

    static PeriodTablesConfig configure(String[] args, boolean local) throws IOException {
        Map<String, Properties> groups =
                !local && Files.exists(MSF_PROPERTIES) ? KinesisAnalyticsRuntime.getApplicationProperties() : Map.of();
        PeriodTablesConfig config;
        try {
            config = load(args, groups, local);
        } catch (ConfigException e) {
            LOG.error(e.getMessage());
            throw e;
        }
        LOG.info("period-tables configuration:\n{}", config.describe());
        return config;
    }

    private static PeriodTablesConfig load(String[] args, Map<String, Properties> groups, boolean local) {
        PeriodTablesConfig config = ConfigLoader.load(args, groups, local);
        if (config.startsEmbeddedDynamoDb()) {
            throw new ConfigException(
                    ConfigKeys.DYNAMODB_EMBEDDED.name(),
                    "Invalid configuration: dynamodb.embedded = 'true' needs the local runner (./run-local);"
                            + " set dynamodb.endpoint or dynamodb.embedded=false to run the job's main");
        }
        return config;
    }

    /**
     * {@code --validate FILE [--key value ...]}: FILE read by the MSF runtime library as on MSF, each
     * problem printed to {@code err} as the job would log it at start.
     *
     * @return the exit status: 0 the job would start, 1 it would not, 2 FILE cannot be read
     */
    static int validate(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].startsWith("--")) {
            err.println("Usage: ./infra/validate-properties FILE [--key value ...]: FILE holds MSF runtime property"
                    + " groups, [{\"PropertyGroupId\": ..., \"PropertyMap\": {...}}, ...]");
            return 2;
        }
        Path file = Path.of(args[0]);
        Map<String, Properties> groups;
        try {
            // the library returns no groups for a missing file, as for an application without properties
            if (!Files.isRegularFile(file)) {
                throw new NoSuchFileException(file.toString());
            }
            groups = KinesisAnalyticsRuntime.getApplicationProperties(file.toString());
        } catch (IOException e) {
            // the runtime library's JSON errors are a shaded Jackson's, over several lines
            String why = e instanceof NoSuchFileException
                    ? "no such file"
                    : e.getMessage() == null
                            ? e.getClass().getSimpleName()
                            : e.getMessage().lines().findFirst().orElse("").strip();
            err.println("Cannot read runtime properties " + file + ": " + why
                    + " (expected JSON: [{\"PropertyGroupId\": ..., \"PropertyMap\": {...}}, ...])");
            return 2;
        }
        String[] overrides = Arrays.copyOfRange(args, 1, args.length);
        List<ConfigException> problems;
        try {
            problems = new ArrayList<>(ConfigLoader.problems(ConfigLoader.settings(overrides, groups), false));
            if (problems.isEmpty()) {
                PeriodTablesConfig config = load(overrides, groups, false);
                out.println(file + " is valid: the job would start with these settings (defaults included; the"
                        + " local run's own keys left out):");
                config.asText().forEach((key, value) -> {
                    if (LOCAL_RUN_KEYS.stream().noneMatch(key::startsWith)) {
                        out.println(key + "=" + (PeriodTablesConfig.isSecret(key) ? "****" : value));
                    }
                });
                for (ConfigKey<?> endpoint :
                        List.of(ConfigKeys.AWS_ENDPOINT, ConfigKeys.DYNAMODB_ENDPOINT, ConfigKeys.KINESIS_ENDPOINT)) {
                    String value = config.asText().get(endpoint.name());
                    if (value != null && DynamoDbClients.isLoopback(URI.create(value))) {
                        out.println("note: " + endpoint.name() + " = " + value + " is the machine's own loopback"
                                + " address: on MSF nothing answers there; leave it out to reach AWS");
                    }
                }
            }
        } catch (ConfigException e) {
            problems = List.of(e);
        }
        problems.forEach(p -> err.println(p.getMessage()));
        return problems.isEmpty() ? 0 : 1;
    }
}
