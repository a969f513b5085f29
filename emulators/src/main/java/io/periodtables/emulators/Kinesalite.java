package io.periodtables.emulators;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.KinesisClientBuilder;
import software.amazon.awssdk.services.kinesis.model.ScalingType;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.StreamDescription;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * The Kinesis emulator kinesalite 3.3.3 behind period-tables' Kinesis fidelity layer (a node
 * process started from {@code emulators/node}, see {@code kinesalite.js}) listening on {@code
 * 127.0.0.1} on a free port. The layer enforces Kinesis's per-shard {@link KinesisLayer.Limit
 * limits}, all of them unless the caller says otherwise ({@link #start(Set)}), fills {@code
 * StreamName} from {@code StreamARN} (clients may address streams by ARN as Flink's {@code
 * KinesisStreamsSource} does), and adds {@code UpdateShardCount}; {@link #layer()} controls it.
 * Streams live in memory and belong to account {@value #ACCOUNT_ID} in us-east-1.
 *
 * <p>Resharding from tests: {@link #splitShard}, {@link #mergeShards}, {@link #updateShardCount},
 * each returning once the stream is {@code ACTIVE} again with its new shards.
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
    private final KinesisLayer layer;
    private boolean closed;

    private Kinesalite(Process process, int port) {
        this.process = process;
        this.port = port;
        this.client = kinesisClientFor(endpointOf(port), true);
        this.layer = new KinesisLayer(endpointOf(port));
    }

    /**
     * Starts kinesalite, every limit of the layer enforced, on a free loopback port; returns once it answers requests.
     */
    public static Kinesalite start() {
        return start(EnumSet.allOf(KinesisLayer.Limit.class));
    }

    /**
     * As {@link #start()} with only {@code limits} enforced from the start ({@link KinesisLayer#limits(Set)}
     * changes them later); a caller that turns one off says why.
     */
    public static Kinesalite start(Set<KinesisLayer.Limit> limits) {
        Path dir = NodeEmulators.ready();
        int port = FreePorts.onLoopback();
        Process process;
        try {
            process = new ProcessBuilder(
                            "node",
                            "kinesalite.js",
                            "--port",
                            String.valueOf(port),
                            "--host",
                            "127.0.0.1",
                            "--limits",
                            KinesisLayer.Limit.wire(limits))
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
        LOG.info("kinesalite listening on {} (limits: {})", kinesalite.endpoint(), KinesisLayer.Limit.wire(limits));
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
        return kinesisClientFor(endpoint(), true);
    }

    /** As {@link #kinesisClient()} without retries: a refused call reaches the test as Kinesis answered it. */
    public KinesisClient kinesisClientWithoutRetries() {
        return kinesisClientFor(endpoint(), false);
    }

    /** The fidelity layer in front of kinesalite: its limits, other consumers, clock and counters. */
    public KinesisLayer layer() {
        return layer;
    }

    /** The open shards of a stream (no ending sequence number), by starting hash key. */
    public List<Shard> openShards(String stream) {
        return client.listShards(b -> b.streamName(stream)).shards().stream()
                .filter(s -> s.sequenceNumberRange().endingSequenceNumber() == null)
                .sorted(Comparator.comparing(
                        s -> new BigInteger(s.hashKeyRange().startingHashKey())))
                .toList();
    }

    /**
     * Splits an open shard into two halves of its hash key range; returns the stream's open shards once it is ACTIVE
     * again.
     */
    public List<Shard> splitShard(String stream, String shardId) {
        Shard shard = openShards(stream).stream()
                .filter(s -> s.shardId().equals(shardId))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no open shard " + shardId + " in " + stream));
        BigInteger start = new BigInteger(shard.hashKeyRange().startingHashKey());
        BigInteger end = new BigInteger(shard.hashKeyRange().endingHashKey());
        return splitShard(stream, shardId, start.add(end).add(BigInteger.ONE).shiftRight(1));
    }

    /**
     * Splits an open shard at {@code newStartingHashKey} (SplitShard); returns the open shards once the stream is
     * ACTIVE again.
     */
    public List<Shard> splitShard(String stream, String shardId, BigInteger newStartingHashKey) {
        client.splitShard(
                b -> b.streamName(stream).shardToSplit(shardId).newStartingHashKey(newStartingHashKey.toString()));
        return awaitActive(stream);
    }

    /** Merges two adjacent open shards (MergeShards); returns the open shards once the stream is ACTIVE again. */
    public List<Shard> mergeShards(String stream, String shardId, String adjacentShardId) {
        client.mergeShards(b -> b.streamName(stream).shardToMerge(shardId).adjacentShardToMerge(adjacentShardId));
        return awaitActive(stream);
    }

    /**
     * UpdateShardCount with UNIFORM_SCALING (the layer's, from splits and merges, as Kinesis does it);
     * returns the open shards once the stream is ACTIVE again with {@code target} of them.
     */
    public List<Shard> updateShardCount(String stream, int target) {
        client.updateShardCount(
                b -> b.streamName(stream).targetShardCount(target).scalingType(ScalingType.UNIFORM_SCALING));
        List<Shard> open = awaitActive(stream);
        if (open.size() != target) {
            throw new IllegalStateException(
                    stream + " has " + open.size() + " open shards after UpdateShardCount to " + target);
        }
        return open;
    }

    private List<Shard> awaitActive(String stream) {
        Instant deadline = Instant.now().plus(STREAM_BOUND);
        while (client.describeStreamSummary(b -> b.streamName(stream))
                        .streamDescriptionSummary()
                        .streamStatus()
                != StreamStatus.ACTIVE) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("stream " + stream + " not ACTIVE after " + STREAM_BOUND);
            }
            pause();
        }
        return openShards(stream);
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

    private static KinesisClient kinesisClientFor(URI endpoint, boolean retries) {
        KinesisClientBuilder builder = KinesisClient.builder()
                .endpointOverride(endpoint)
                .region(REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create());
        if (!retries) {
            builder.overrideConfiguration(o -> o.retryPolicy(RetryPolicy.none()));
        }
        return builder.build();
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
