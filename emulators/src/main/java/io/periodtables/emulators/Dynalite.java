package io.periodtables.emulators;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The open-source DynamoDB emulator dynalite 3.2.2 behind period-tables' DynamoDB fidelity layer
 * (a node process started from {@code emulators/node}, see {@code dynalite.js}), listening on
 * {@code 127.0.0.1} on a free port. The layer fills in what dynalite lacks (TTL, tags and table
 * options given at creation, item counts, DynamoDB's request and item size rules, the table state
 * rules) and enforces DynamoDB's {@link Limit limits}, all of them unless the caller says
 * otherwise.
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
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A limit of DynamoDB's that the fidelity layer enforces. */
    public enum Limit {
        /** Each provisioned table's WCU as a token bucket with burst (UnprocessedItems, ProvisionedThroughputExceeded). */
        THROUGHPUT("throughput"),
        /** 4 capacity decreases a UTC day, then one an hour, at most 27 (LimitExceededException). */
        DECREASES("decreases"),
        /** A new on-demand table writes 4,000 units/s until warmed (WarmThroughput), at most its OnDemandThroughput. */
        ON_DEMAND("on-demand"),
        /** The account's table quota (2,500 by default). */
        TABLES("tables");

        private final String wire;

        Limit(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }

        static String wire(Set<Limit> limits) {
            return limits.isEmpty() ? "none" : limits.stream().map(Limit::wire).collect(Collectors.joining(","));
        }
    }

    private final Process process;
    private final int port;
    private final Optional<Path> dataDir;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final HttpClient control =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private boolean listening = true;
    private boolean closed;

    private Dynalite(Process process, int port, Optional<Path> dataDir) {
        this.process = process;
        this.port = port;
        this.dataDir = dataDir;
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
        private Set<Limit> limits = EnumSet.allOf(Limit.class);
        private Optional<Path> log = Optional.empty();

        private Launcher() {}

        /** Keep the data in this LevelDB directory (created if missing) instead of memory. */
        public Launcher dataDir(Path dir) {
            this.dataDir = Optional.of(dir);
            return this;
        }

        /** The limits enforced from the start (default: all); {@link #limits(Set)} changes them later. */
        public Launcher limits(Set<Limit> limits) {
            this.limits = limits.isEmpty() ? EnumSet.noneOf(Limit.class) : EnumSet.copyOf(limits);
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
                    Limit.wire(limits)));
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
            Dynalite dynalite = new Dynalite(process, port, dataDir);
            dynalite.readOutput();
            try {
                dynalite.await("LISTENING", STARTUP_BOUND);
            } catch (RuntimeException e) {
                dynalite.close();
                throw e;
            }
            LOG.info(
                    "dynalite listening on {} ({}; limits: {})",
                    dynalite.endpoint(),
                    dataDir.map(d -> "data in " + d).orElse("in memory"),
                    Limit.wire(limits));
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

    /** CPU seconds (user + system) process {@code pid} of this machine has used so far, from {@code /proc}; NaN where there is none. */
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
        return DynamoDbClient.builder()
                .endpointOverride(endpoint())
                .region(REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.builder()
                        .socketTimeout(Duration.ofMinutes(2))
                        .build())
                .build();
    }

    /** The limits enforced from now on. */
    public void limits(Set<Limit> limits) {
        control("{\"limits\":\"" + Limit.wire(limits) + "\"}");
    }

    /** How much unused provisioned capacity a table saves up (DynamoDB: 300 s, the default). */
    public void burst(Duration burst) {
        control("{\"burstSeconds\":" + burst.toMillis() / 1000.0 + "}");
    }

    /** The account's table quota (default 2,500). */
    public void maxTables(int tables) {
        control("{\"maxTables\":" + tables + "}");
    }

    /** Moves the layer's clock ahead (the decrease quota's hour and UTC day, TTL's hour, token refills). */
    public void advanceClock(Duration by) {
        control("{\"advanceClockMs\":" + by.toMillis() + "}");
    }

    /** How far {@link #advanceClock} has moved the layer's clock ahead of this machine's. */
    public Duration clockOffset() {
        return Duration.ofMillis(layer().get("clockOffsetMs").asLong());
    }

    /** Back to the limits, burst and table quota it was started with; counters to zero (the clock stays). */
    public void resetLayer() {
        control("{\"reset\":true}");
    }

    /** The limits in force now. */
    public Set<Limit> limits() {
        Set<Limit> limits = EnumSet.noneOf(Limit.class);
        layer().get("limits")
                .forEach(l -> limits.add(
                        Limit.valueOf(l.asText().toUpperCase(Locale.ROOT).replace('-', '_'))));
        return limits;
    }

    /**
     * What the layer refused so far: {@code throttledWrites} (writes held back or failed for
     * throughput), {@code throttledCalls}, {@code refusedDecreases}, {@code refusedTables},
     * {@code refusedTtlChanges}, {@code refusedBatches}, {@code refusedItems}, {@code refusedWhileBusy}.
     */
    public long refused(String counter) {
        JsonNode value = layer().get("counters").get(counter);
        if (value == null) {
            throw new IllegalArgumentException("no counter " + counter + " in " + layer());
        }
        return value.asLong();
    }

    private JsonNode layer() {
        return control(null);
    }

    private JsonNode control(String change) {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(endpoint().resolve("/__fidelity")).timeout(Duration.ofSeconds(10));
        request = change == null ? request.GET() : request.POST(HttpRequest.BodyPublishers.ofString(change));
        try {
            HttpResponse<String> response = control.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode answer = JSON.readTree(response.body());
            if (response.statusCode() != 200) {
                throw new IllegalArgumentException("the fidelity layer refused " + change + ": " + answer);
            }
            return answer instanceof ObjectNode ? answer : JSON.createObjectNode();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach the fidelity layer on " + endpoint(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted talking to the fidelity layer", e);
        }
    }

    /** Stops listening (clients see "connection refused") but keeps the data; see {@link #restart()}. */
    public synchronized void stop() {
        checkOpen();
        if (listening) {
            command("stop");
            await("STOPPED", STARTUP_BOUND);
            listening = false;
        }
    }

    /** Listens again on the same port after {@link #stop()}; a no-op while listening. */
    public synchronized void restart() {
        checkOpen();
        if (!listening) {
            command("start");
            await("LISTENING", STARTUP_BOUND);
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
        try {
            process.getOutputStream().close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private void command(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("dynalite on port " + port + " is gone", e);
        }
    }

    private void await(String event, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        try {
            while (true) {
                String next = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (next == null || next.equals("EXIT")) {
                    throw new IllegalStateException("dynalite on port " + port
                            + (next == null
                                    ? " did not report " + event + " within " + bound
                                    : " exited (see the log above)"));
                }
                if (next.equals(event)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for dynalite", e);
        }
    }

    private void readOutput() {
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader lines = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            if (line.startsWith("LISTENING") || line.equals("STOPPED")) {
                                events.add(line.split(" ")[0]);
                            } else {
                                LOG.info("[dynalite:{}] {}", port, line);
                            }
                        }
                    } catch (IOException e) {
                        LOG.debug("dynalite output ended", e);
                    }
                    events.add("EXIT");
                },
                "dynalite-" + port + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("dynalite on port " + port + " is closed");
        }
    }
}
