package io.periodtables.emulators;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.StreamDescription;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * The Kinesis emulator kinesalite 3.3.3 (a node process started from {@code emulators/node},
 * see {@code kinesalite.js}) listening on {@code 127.0.0.1} on a free port. Its launcher fills
 * {@code StreamName} from {@code StreamARN}, so clients may address streams by ARN as Flink's
 * {@code KinesisStreamsSource} does. Streams live in memory and belong to account
 * {@value #ACCOUNT_ID} in us-east-1.
 *
 * <p>CBOR: kinesalite is used with JSON. The SDK reads the system property
 * {@code aws.cborEnabled} when it builds and uses a Kinesis client, so it must be {@code false}
 * before any Kinesis client of the JVM (also Flink's) is built. Loading this class sets it for
 * the whole JVM; code that builds a Kinesis client before touching this class must set it itself
 * ({@code -Daws.cborEnabled=false}).
 *
 * <p>{@link #close()} ends the node process (and any child); the process also exits by itself
 * when the JVM that started it goes away (it watches its standard input).
 */
public final class Kinesalite implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Kinesalite.class);
    /** The account kinesalite puts in stream ARNs. */
    public static final String ACCOUNT_ID = "000000000000";

    public static final Region REGION = Region.US_EAST_1;
    private static final Duration STARTUP_BOUND = Duration.ofSeconds(30);
    private static final Duration STREAM_BOUND = Duration.ofSeconds(30);

    static {
        System.setProperty("aws.cborEnabled", "false");
    }

    private final Process process;
    private final int port;
    private final KinesisClient client;
    private boolean closed;

    private Kinesalite(Process process, int port) {
        this.process = process;
        this.port = port;
        this.client = kinesisClientFor(endpointOf(port));
    }

    /** Starts kinesalite on a free loopback port and returns once it answers requests. */
    public static Kinesalite start() {
        Path dir = NodeEmulators.ready();
        int port = FreePorts.onLoopback();
        Process process;
        try {
            process = new ProcessBuilder("node", "kinesalite.js", "--port", String.valueOf(port), "--host", "127.0.0.1")
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start node (is it on the PATH?) for kinesalite in " + dir, e);
        }
        forwardOutput(process, port);
        Kinesalite kinesalite = new Kinesalite(process, port);
        try {
            kinesalite.awaitAnswering();
        } catch (RuntimeException e) {
            kinesalite.close();
            throw e;
        }
        LOG.info("kinesalite listening on {}", kinesalite.endpoint());
        return kinesalite;
    }

    /** {@code arn:aws:kinesis:us-east-1:000000000000:stream/<name>}. */
    public static String streamArn(String streamName) {
        return "arn:aws:kinesis:" + REGION.id() + ":" + ACCOUNT_ID + ":stream/" + streamName;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return endpointOf(port);
    }

    public int port() {
        return port;
    }

    /** The node process's id. */
    public long pid() {
        return process.pid();
    }

    /**
     * A new synchronous Kinesis client for test set-up and assertions (explicit URL-connection HTTP
     * client, region us-east-1, dummy static credentials); the caller closes it.
     */
    public KinesisClient kinesisClient() {
        return kinesisClientFor(endpoint());
    }

    /** Creates a stream, waits until it is ACTIVE and returns its ARN. */
    public String createStream(String name, int shards) {
        client.createStream(b -> b.streamName(name).shardCount(shards));
        Instant deadline = Instant.now().plus(STREAM_BOUND);
        while (true) {
            StreamDescription stream =
                    client.describeStream(b -> b.streamName(name)).streamDescription();
            if (stream.streamStatus() == StreamStatus.ACTIVE) {
                return stream.streamARN();
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(
                        "stream " + name + " still " + stream.streamStatus() + " after " + STREAM_BOUND);
            }
            pause();
        }
    }

    /** Ends the node process and its children; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        client.close();
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private void awaitAnswering() {
        Instant deadline = Instant.now().plus(STARTUP_BOUND);
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "kinesalite exited with " + process.exitValue() + " (see the log above)");
            }
            try {
                client.listStreams();
                return;
            } catch (SdkException e) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException(
                            "kinesalite did not answer on port " + port + " within " + STARTUP_BOUND, e);
                }
            }
            pause();
        }
    }

    private static void forwardOutput(Process process, int port) {
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader lines = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            LOG.info("[kinesalite:{}] {}", port, line);
                        }
                    } catch (IOException e) {
                        LOG.debug("kinesalite output ended", e);
                    }
                },
                "kinesalite-" + port + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    private static KinesisClient kinesisClientFor(URI endpoint) {
        return KinesisClient.builder()
                .endpointOverride(endpoint)
                .region(REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    private static URI endpointOf(int port) {
        return URI.create("http://" + Dynalite.HOST + ":" + port);
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for kinesalite", e);
        }
    }
}
