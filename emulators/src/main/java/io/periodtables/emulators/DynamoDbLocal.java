package io.periodtables.emulators;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.lang.reflect.Field;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * DynamoDB Local (the real emulator, in this JVM) listening on {@code 127.0.0.1} only, on a free
 * port, with telemetry disabled. {@link #start()} keeps the data in memory, {@link #start(Path)}
 * in a directory, so a test can {@link #close()} it and start a new one on the same data.
 *
 * <p>{@link #stop()} and {@link #restart()} simulate an outage: the HTTP listener goes away
 * (clients get "connection refused") and comes back on the same port with the data intact, also
 * for the in-memory mode. {@link #close()} stops the server for good and is idempotent.
 *
 * <p>DynamoDB Local's {@code ServerRunner} has no host option and binds all interfaces; the
 * Jetty connector it builds is therefore pointed to the loopback address before it starts.
 */
public final class DynamoDbLocal implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DynamoDbLocal.class);
    /** The only interface DynamoDB Local listens on. */
    public static final String HOST = "127.0.0.1";
    /** Region the clients built here use; DynamoDB Local keeps tables per access key and region. */
    public static final Region REGION = Region.US_EAST_1;
    /**
     * Where the local run ({@code ./run-local}) keeps DynamoDB Local's data and the {@code query}
     * command finds it, relative to the repository root.
     */
    public static final Path LOCAL_RUN_DATA = Path.of(".flink-local", "dynamodb");

    private final DynamoDBProxyServer proxy;
    private final Server jetty;
    private final int port;
    private final Optional<Path> dataDir;
    private boolean listening;
    private boolean closed;

    private DynamoDbLocal(DynamoDBProxyServer proxy, Server jetty, int port, Optional<Path> dataDir) {
        this.proxy = proxy;
        this.jetty = jetty;
        this.port = port;
        this.dataDir = dataDir;
    }

    /** Starts DynamoDB Local with an in-memory database. */
    public static DynamoDbLocal start() {
        return launch(Optional.empty());
    }

    /**
     * Starts DynamoDB Local with its database file in {@code dataDir} (created if missing), so the
     * tables survive {@link #close()} and a later {@code start(dataDir)}.
     */
    public static DynamoDbLocal start(Path dataDir) {
        return launch(Optional.of(dataDir));
    }

    private static DynamoDbLocal launch(Optional<Path> dataDir) {
        int port = FreePorts.onLoopback();
        List<String> args = new ArrayList<>(List.of("-port", String.valueOf(port), "-disableTelemetry"));
        if (dataDir.isPresent()) {
            try {
                Files.createDirectories(dataDir.get());
            } catch (java.io.IOException e) {
                throw new IllegalStateException("cannot create DynamoDB Local data directory " + dataDir.get(), e);
            }
            // -sharedDb: one database file whatever access key and region a client uses.
            args.addAll(List.of("-sharedDb", "-dbPath", dataDir.get().toAbsolutePath().toString()));
        } else {
            args.addAll(List.of("-inMemory", "-sharedDb"));
        }
        try {
            DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args.toArray(String[]::new));
            Server jetty = jettyOf(proxy);
            bindToLoopback(jetty);
            DynamoDbLocal local = new DynamoDbLocal(proxy, jetty, port, dataDir);
            local.listen();
            LOG.info("DynamoDB Local listening on {} ({})", local.endpoint(),
                    dataDir.map(d -> "data in " + d).orElse("in memory"));
            return local;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start DynamoDB Local on " + HOST + ":" + port, e);
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://" + HOST + ":" + port);
    }

    public int port() {
        return port;
    }

    /** The data directory given to {@link #start(Path)}, empty for an in-memory database. */
    public Optional<Path> dataDir() {
        return dataDir;
    }

    /**
     * A new synchronous client for test set-up and assertions (explicit URL-connection HTTP
     * client, region us-east-1, dummy static credentials, SDK default retries). The caller
     * closes it.
     */
    public DynamoDbClient syncClient() {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint())
                .region(REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    /** Stops listening (clients see "connection refused") but keeps the data; see {@link #restart()}. */
    public synchronized void stop() {
        checkOpen();
        if (listening) {
            try {
                jetty.stop();
            } catch (Exception e) {
                throw new IllegalStateException("cannot stop DynamoDB Local listener on port " + port, e);
            }
            listening = false;
        }
    }

    /** Listens again on the same port after {@link #stop()}; a no-op while listening. */
    public synchronized void restart() {
        checkOpen();
        if (!listening) {
            try {
                listen();
            } catch (Exception e) {
                throw new IllegalStateException("cannot restart DynamoDB Local on port " + port, e);
            }
        }
    }

    public synchronized boolean isListening() {
        return listening;
    }

    /** Stops the server and releases its database; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        listening = false;
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop DynamoDB Local on port " + port, e);
        }
    }

    private void listen() throws Exception {
        // safeStart() is a plain Jetty start: DynamoDBProxyServer.start() would swallow a
        // "port in use" error and would try to send a telemetry event.
        proxy.safeStart();
        listening = true;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("DynamoDB Local on port " + port + " is closed");
        }
    }

    /** DynamoDBProxyServer keeps its Jetty server in a private field and exposes no host option. */
    private static Server jettyOf(DynamoDBProxyServer proxy) throws ReflectiveOperationException {
        Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        return (Server) field.get(proxy);
    }

    private static void bindToLoopback(Server jetty) {
        Connector[] connectors = jetty.getConnectors();
        if (connectors.length == 0) {
            throw new IllegalStateException("DynamoDB Local's Jetty server has no connector to bind");
        }
        for (Connector connector : connectors) {
            if (!(connector instanceof ServerConnector)) {
                throw new IllegalStateException("unexpected DynamoDB Local connector " + connector.getClass().getName());
            }
            ((ServerConnector) connector).setHost(HOST);
        }
    }
}
