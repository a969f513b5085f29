package io.periodtables.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * The open-source DynamoDB emulator dynalite 3.2.2 behind period-tables' DynamoDB fidelity layer
 * (a node process started from {@code emulators/node}, see {@code dynalite.js}), listening on
 * {@code 127.0.0.1} on a free port. The layer fills in what dynalite lacks (TTL, tags and table
 * options given at creation, item counts, DynamoDB's request and item size rules), keeps tables
 * CREATING, UPDATING and DELETING for a while on its own clock, and enforces DynamoDB's {@link
 * FidelityLayer.Limit limits}, all of them unless the caller says otherwise.
 *
 * <p>Data lives in memory, or in a LevelDB directory ({@link Launcher#dataDir}) that a later start
 * reopens. {@link #stop()} and {@link #restart()} simulate an outage: the listener goes away
 * (clients get "connection refused") and comes back on the same port with the data intact.
 * {@link #close()} ends the process; it also exits by itself when the JVM that started it goes
 * away (it watches its standard input).
 */
public final class Dynalite implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dynalite.class);
    /** The only interface the emulators listen on. */
    public static final String HOST = "127.0.0.1";
    /** Region the clients built here use. */
    public static final Region REGION = Region.US_EAST_1;
    /**
     * Where the local run ({@code ./run-local}) keeps the emulator's data and the {@code query}
     * command finds it, relative to the repository root.
     */
    public static final Path LOCAL_RUN_DATA = Path.of(".flink-local", "dynamodb");

    private static final Duration STARTUP_BOUND = Duration.ofSeconds(30);

    private final NodeProcess process;
    private final int port;
    private final Optional<Path> dataDir;
    private final FidelityLayer layer;
    private boolean listening = true;
    private boolean closed;

    private Dynalite(NodeProcess process, int port, Optional<Path> dataDir) {
        this.process = process;
        this.port = port;
        this.dataDir = dataDir;
        this.layer = new FidelityLayer(endpoint());
    }

    /** In memory, every limit enforced. */
    public static Dynalite start() {
        return launcher().start();
    }

    /** With its data in {@code dataDir} (created if missing), every limit enforced. */
    public static Dynalite start(Path dataDir) {
        return launcher().dataDir(dataDir).start();
    }

    public static Launcher launcher() {
        return new Launcher();
    }

    /** How to start one: data directory, limits, log file. */
    public static final class Launcher {
        private Optional<Path> dataDir = Optional.empty();
        private Set<FidelityLayer.Limit> limits = EnumSet.allOf(FidelityLayer.Limit.class);
        private Optional<Path> log = Optional.empty();
        private Optional<Duration> tableStates = Optional.empty();

        private Launcher() {}

        /**
         * How long tables stay CREATING, UPDATING and DELETING (default 500 ms each, as {@code
         * dynalite.js} has it); a caller that shortens it says why.
         */
        public Launcher tableStates(Duration each) {
            this.tableStates = Optional.of(each);
            return this;
        }

        /** Keep the data in this LevelDB directory (created if missing) instead of memory. */
        public Launcher dataDir(Path dir) {
            this.dataDir = Optional.of(dir);
            return this;
        }

        /** The limits enforced from the start (default: all); {@link #limits(Set)} changes them later. */
        public Launcher limits(Set<FidelityLayer.Limit> limits) {
            this.limits = limits.isEmpty() ? EnumSet.noneOf(FidelityLayer.Limit.class) : EnumSet.copyOf(limits);
            return this;
        }

        /** Write the process's output to this file instead of this JVM's log. */
        public Launcher log(Path file) {
            this.log = Optional.of(file);
            return this;
        }

        public Dynalite start() {
            Path dir = NodeEmulators.ready();
            int port = FreePorts.onLoopback();
            List<String> command = new ArrayList<>(List.of(
                    "node",
                    "dynalite.js",
                    "--port",
                    String.valueOf(port),
                    "--host",
                    HOST,
                    "--limits",
                    FidelityLayer.Limit.wire(limits)));
            tableStates.ifPresent(each -> {
                for (String flag : List.of("--create-table-ms", "--update-table-ms", "--delete-table-ms")) {
                    command.addAll(List.of(flag, String.valueOf(each.toMillis())));
                }
            });
            if (dataDir.isPresent()) {
                try {
                    Files.createDirectories(dataDir.get());
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create the DynamoDB data directory " + dataDir.get(), e);
                }
                command.addAll(List.of("--path", dataDir.get().toAbsolutePath().toString()));
            }
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
            log.ifPresentOrElse(
                    l -> builder.redirectError(ProcessBuilder.Redirect.appendTo(l.toFile())),
                    () -> builder.redirectErrorStream(true));
            Process process;
            try {
                process = builder.start();
            } catch (IOException e) {
                throw new IllegalStateException("cannot start node (is it on the PATH?) for dynalite in " + dir, e);
            }
            Dynalite dynalite = new Dynalite(new NodeProcess(process, "dynalite on port " + port), port, dataDir);
            try {
                dynalite.process.await("LISTENING", STARTUP_BOUND);
            } catch (RuntimeException e) {
                dynalite.close();
                throw e;
            }
            LOG.info(
                    "dynalite listening on {} ({}; limits: {})",
                    dynalite.endpoint(),
                    dataDir.map(d -> "data in " + d).orElse("in memory"),
                    FidelityLayer.Limit.wire(limits));
            return dynalite;
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://" + HOST + ":" + port);
    }

    public int port() {
        return port;
    }

    /** The node process's id. */
    public long pid() {
        return process.pid();
    }

    /** The data directory, empty for an in-memory database. */
    public Optional<Path> dataDir() {
        return dataDir;
    }

    /** CPU seconds (user + system) the node process has used so far; NaN where {@code /proc} has none. */
    public double cpuSeconds() {
        return cpuSecondsOf(process.pid());
    }

    /**
     * CPU seconds (user + system) process {@code pid} of this machine has used so far, from {@code /proc}; NaN where
     * there is none.
     */
    public static double cpuSecondsOf(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // fields after the parenthesised command name: state is field 3, utime 14, stime 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * A new synchronous client for set-up and assertions (URL-connection HTTP client, region
     * us-east-1, dummy static credentials, SDK default retries); the caller closes it.
     */
    public DynamoDbClient syncClient() {
        return syncClientBuilder().build();
    }

    private DynamoDbClientBuilder syncClientBuilder() {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint())
                .region(REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.builder()
                        .socketTimeout(Duration.ofMinutes(2))
                        .build());
    }

    /** As {@link #syncClient()} without retries: a refused call reaches the test as DynamoDB answered it. */
    public DynamoDbClient syncClientWithoutRetries() {
        return syncClientBuilder()
                .overrideConfiguration(o -> o.retryPolicy(RetryPolicy.none()))
                .build();
    }

    /** The fidelity layer in front of dynalite: its limits, clock and counters. */
    public FidelityLayer layer() {
        return layer;
    }

    /** Stops listening (clients see "connection refused") but keeps the data; see {@link #restart()}. */
    public synchronized void stop() {
        checkOpen();
        if (listening) {
            process.command("stop");
            process.await("STOPPED", STARTUP_BOUND);
            listening = false;
        }
    }

    /** Listens again on the same port after {@link #stop()}; a no-op while listening. */
    public synchronized void restart() {
        checkOpen();
        if (!listening) {
            process.command("start");
            process.await("LISTENING", STARTUP_BOUND);
            listening = true;
        }
    }

    public synchronized boolean isListening() {
        return listening;
    }

    /** Ends the node process (its LevelDB closed first); idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        listening = false;
        process.close();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("dynalite on port " + port + " is closed");
        }
    }
}
