package io.periodtables.emulators;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * DynamoDB Local in a separate JVM on 127.0.0.1 ({@link DynamoDbLocalServer} on this JVM's class
 * path), so the emulator has its own heap, GC and CPU accounting apart from the Flink job that
 * writes to it. The child reads its standard input until it closes: {@link #close()} closes it,
 * and so does the operating system when this JVM dies, however it dies.
 */
public final class DynamoDbLocalProcess implements AutoCloseable {

    private final Process process;
    private final URI endpoint;

    private DynamoDbLocalProcess(Process process, URI endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    /** In-memory DynamoDB Local; the child's log is discarded. */
    public static DynamoDbLocalProcess start(String maxHeap) throws IOException {
        return start(maxHeap, Optional.empty(), Optional.empty());
    }

    /**
     * @param maxHeap the child's {@code -Xmx}, e.g. {@code 1g}
     * @param dataDir where the child keeps its database (empty: in memory). A database file
     *     costs DynamoDB Local a synced SQLite write per item: on a virtual disk it absorbs a
     *     twentieth of what it does in memory
     * @param log file for the child's standard error (empty: discarded)
     */
    public static DynamoDbLocalProcess start(String maxHeap, Optional<Path> dataDir, Optional<Path> log)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + maxHeap, "-XX:+UseParallelGC",
                "-cp", System.getProperty("java.class.path"), DynamoDbLocalServer.class.getName()));
        dataDir.ifPresent(d -> command.add(d.toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(log.map(l -> ProcessBuilder.Redirect.to(l.toFile())).orElse(ProcessBuilder.Redirect.DISCARD));
        builder.environment().put("DDB_LOCAL_TELEMETRY", "0");
        Process process = builder.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(DynamoDbLocalServer.ENDPOINT_LINE)) {
                URI endpoint = URI.create(line.substring(DynamoDbLocalServer.ENDPOINT_LINE.length()).trim());
                Thread drain = new Thread(() -> drain(out), "dynamodb-local-stdout");
                drain.setDaemon(true);
                drain.start();
                return new DynamoDbLocalProcess(process, endpoint);
            }
        }
        process.destroyForcibly();
        throw new IOException("DynamoDB Local child JVM exited before printing its endpoint"
                + log.map(l -> "; see " + l).orElse(""));
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // discard
            }
        } catch (IOException ignored) {
            // the child is gone
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return endpoint;
    }

    public long pid() {
        return process.pid();
    }

    /** CPU seconds (user + system) the child has used so far, from {@code /proc}; NaN where there is none. */
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

    /** A synchronous client for set-up and checks (URL-connection HTTP client, dummy credentials). */
    public DynamoDbClient syncClient() {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(DynamoDbLocal.REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofMinutes(2)).build())
                .build();
    }

    /** Closes the child's input and waits for it to stop (forcibly after 20 s); idempotent. */
    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already closed
        }
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
