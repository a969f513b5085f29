package io.periodtables.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * The open-source S3 emulator s3proxy {@value #VERSION} (Apache 2.0) in a child JVM, listening on
 * {@code 127.0.0.1} on a free port, with its objects in memory (jclouds' {@code transient} store)
 * or in files under a folder ({@code filesystem-nio2}), and AWS signature checks on (V2 and V4, one
 * fixed key pair). Buckets given to {@link #start(String...)} exist from the start.
 *
 * <p>The jar is {@code org.gaul:s3proxy:}{@value #VERSION}{@code :jar-with-dependencies}, which the
 * build of this module copies to {@code emulators/target/s3proxy/}; it is looked up there (walking
 * up from the working directory), then in the local Maven repository ({@code maven.repo.local} or
 * {@code ~/.m2/repository}), unless the system property {@value #JAR_PROPERTY} names it. It never
 * joins a class path of ours: it bundles its own Jetty, Guava and jclouds.
 *
 * <p>{@link #close()} ends the process, and with it the objects in memory; the process also exits by itself
 * when the JVM that started it goes away (it watches its standard input).
 */
public final class S3Emulator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(S3Emulator.class);

    public static final String VERSION = "2.6.0";
    public static final String JAR_PROPERTY = "periodtables.s3proxy.jar";
    /** The key pair the emulator accepts (and the only one). */
    public static final String ACCESS_KEY = "local";

    public static final String SECRET_KEY = "local-secret";

    private static final String JAR = "s3proxy-" + VERSION + "-jar-with-dependencies.jar";
    private static final Duration STARTUP_BOUND = Duration.ofSeconds(60);

    private final NodeProcess process;
    private final int port;
    /** Holds s3proxy's properties file. */
    private final Path root;
    /** Where the objects are, when not in memory. */
    private final Optional<Path> dataDir;

    private boolean closed;

    private S3Emulator(NodeProcess process, int port, Path root, Optional<Path> dataDir) {
        this.process = process;
        this.port = port;
        this.root = root;
        this.dataDir = dataDir;
    }

    /** Starts s3proxy with its objects in memory and these (empty) buckets. */
    public static S3Emulator start(String... buckets) {
        return start(Optional.empty(), buckets);
    }

    /**
     * Starts s3proxy with its objects in files under {@code dataDir} (created if missing), which a
     * later start on the same folder serves again, and these buckets, created unless the folder has them.
     */
    public static S3Emulator start(Path dataDir, String... buckets) {
        return start(Optional.of(dataDir), buckets);
    }

    private static S3Emulator start(Optional<Path> dataDir, String... buckets) {
        Path root;
        Path properties;
        try {
            root = Files.createTempDirectory("s3proxy-");
            properties = root.resolve("s3proxy.properties");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the S3 emulator's folder", e);
        }
        int port = FreePorts.onLoopback();
        dataDir.ifPresent(S3Emulator::createDirectories);
        writeProperties(properties, port, dataDir);
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-DLOG_LEVEL=warn",
                "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
                "-cp",
                jar() + java.io.File.pathSeparator + ownClasses(),
                S3ProxyMain.class.getName(),
                "--properties",
                properties.toString());
        Process child;
        try {
            child = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            deleteQuietly(root);
            throw new IllegalStateException("cannot start s3proxy: " + command, e);
        }
        S3Emulator emulator =
                new S3Emulator(new NodeProcess(child, "s3proxy on port " + port, LOG), port, root, dataDir);
        try {
            emulator.process.await("LISTENING", STARTUP_BOUND);
            for (String bucket : buckets) {
                if (dataDir.isEmpty() || !Files.isDirectory(dataDir.get().resolve(bucket))) {
                    emulator.send(SdkHttpMethod.PUT, bucket, "");
                }
            }
        } catch (RuntimeException e) {
            emulator.close();
            throw e;
        }
        LOG.info(
                "s3proxy {} listening on {} (buckets {}, objects {})",
                VERSION,
                emulator.endpoint(),
                List.of(buckets),
                dataDir.map(d -> "in " + d).orElse("in memory"));
        return emulator;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /**
     * The options of Flink's S3 file system ({@code flink-s3-fs-hadoop}) that point it at
     * {@code endpoint} (this emulator, or a forwarder in front of it), for
     * {@code FileSystem.initialize}.
     */
    public static Map<String, String> flinkOptions(URI endpoint) {
        return Map.of(
                "s3.endpoint",
                endpoint.toString(),
                "s3.path.style.access",
                "true",
                "s3.access-key",
                ACCESS_KEY,
                "s3.secret-key",
                SECRET_KEY);
    }

    /**
     * {@link #flinkOptions(URI)} for this emulator. On files, Hadoop's S3A also keeps its
     * "directory markers" ({@code a/} keys): the folder-backed store keeps such a key as a folder
     * and answers 500 to deleting one that holds objects, which S3A does by default after every
     * file it writes. Keeping them is S3A's documented {@code keep} policy (Hadoop 3.4's default).
     */
    public Map<String, String> flinkOptions() {
        Map<String, String> options = new TreeMap<>(flinkOptions(endpoint()));
        if (dataDir.isPresent()) {
            options.put("s3.directory.marker.retention", "keep");
        }
        return options;
    }

    /**
     * A signed {@code GET /bucket?query} (Signature V4, this emulator's key pair): the response
     * body, for checks of what the bucket holds ({@code list-type=2}, {@code uploads}).
     */
    public String get(String bucket, String query) {
        return send(SdkHttpMethod.GET, bucket, query);
    }

    private String send(SdkHttpMethod method, String bucket, String query) {
        URI uri = URI.create(endpoint() + "/" + bucket + (query.isEmpty() ? "" : "?" + query));
        SignedRequest signed = AwsV4HttpSigner.create()
                .sign(r -> r.identity(AwsCredentialsIdentity.create(ACCESS_KEY, SECRET_KEY))
                        .request(
                                SdkHttpRequest.builder().method(method).uri(uri).build())
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1"));
        HttpRequest.Builder request =
                HttpRequest.newBuilder(uri).method(method.name(), HttpRequest.BodyPublishers.noBody());
        signed.request().headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Host")) { // the HTTP client sets it, to the same value
                values.forEach(v -> request.header(name, v));
            }
        });
        try {
            HttpResponse<String> response = HttpClient.newHttpClient()
                    .send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() != 200) {
                throw new IllegalStateException(
                        method + " " + uri + ": " + response.statusCode() + " " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + method + " " + uri, e);
        }
    }

    /** The child JVM's process id. */
    public long pid() {
        return process.pid();
    }

    /** Ends the process, and with it the objects in memory; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        process.close();
        deleteQuietly(root);
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the S3 emulator's data folder " + dir, e);
        }
    }

    private static void writeProperties(Path file, int port, Optional<Path> dataDir) {
        String text = String.join(
                "\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + ACCESS_KEY,
                "s3proxy.credential=" + SECRET_KEY,
                // jclouds asks a folder-backed store for an identity, which the store does not check.
                dataDir.map(d -> "jclouds.provider=filesystem-nio2\njclouds.identity=local\njclouds.credential=local"
                                + "\njclouds.filesystem.basedir=" + d.toAbsolutePath())
                        .orElse("jclouds.provider=transient"),
                "");
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** s3proxy's jar, found as described in the class comment. */
    static Path jar() {
        Optional<Path> configured =
                Optional.ofNullable(System.getProperty(JAR_PROPERTY)).map(Path::of);
        if (configured.isPresent()) {
            if (!Files.isRegularFile(configured.get())) {
                throw new IllegalStateException(
                        "no s3proxy jar at " + configured.get() + " (from -D" + JAR_PROPERTY + ")");
            }
            return configured.get();
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            for (Path candidate : new Path[] {
                dir.resolve("target/s3proxy").resolve(JAR),
                dir.resolve("emulators/target/s3proxy").resolve(JAR)
            }) {
                if (Files.isRegularFile(candidate)) {
                    return candidate;
                }
            }
        }
        Path repository = Optional.ofNullable(System.getProperty("maven.repo.local"))
                .map(Path::of)
                .orElse(Path.of(System.getProperty("user.home"), ".m2", "repository"));
        Path inRepository =
                repository.resolve("org/gaul/s3proxy").resolve(VERSION).resolve(JAR);
        if (Files.isRegularFile(inRepository)) {
            return inRepository;
        }
        throw new IllegalStateException("cannot find " + JAR + " in emulators/target/s3proxy or " + inRepository
                + ": build the emulators module (mvn -pl emulators generate-resources) or set -D" + JAR_PROPERTY);
    }

    /** Where {@link S3ProxyMain} is loaded from: this module's classes folder or jar. */
    private static Path ownClasses() {
        try {
            return Path.of(S3ProxyMain.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the emulators' classes", e);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("cannot delete {}", dir, e);
        }
    }
}
