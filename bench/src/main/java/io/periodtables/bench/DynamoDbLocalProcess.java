package io.periodtables.bench;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * DynamoDB Local in a separate JVM on 127.0.0.1 ({@link DynamoDbLocalServer} on this JVM's class
 * path). Its CPU time is read from {@code /proc}, so a benchmark can report the emulator's share
 * of the two cores apart from the client's.
 */
final class DynamoDbLocalProcess implements AutoCloseable {

    private final Process process;
    private final URI endpoint;

    private DynamoDbLocalProcess(Process process, URI endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    static DynamoDbLocalProcess start(String maxHeap) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + maxHeap, "-XX:+UseParallelGC",
                "-cp", System.getProperty("java.class.path"), DynamoDbLocalServer.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
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
        throw new IOException("DynamoDB Local child JVM exited before printing its endpoint");
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

    URI endpoint() {
        return endpoint;
    }

    long pid() {
        return process.pid();
    }

    /** CPU seconds (user + system) the child has used so far. */
    double cpuSeconds() {
        return ProcCpu.secondsOf(process.pid());
    }

    /** A synchronous client for set-up and checks (URL-connection HTTP client, dummy credentials). */
    DynamoDbClient syncClient() {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.builder().socketTimeout(java.time.Duration.ofMinutes(2)).build())
                .build();
    }

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

    /** CPU time of a process of this machine from {@code /proc/<pid>/stat}. */
    static final class ProcCpu {
        private static final double TICKS_PER_SECOND = 100.0;

        private ProcCpu() {}

        static double secondsOf(long pid) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // fields after the parenthesised command name: state is field 3, utime 14, stime 15
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
            } catch (IOException | RuntimeException e) {
                return Double.NaN;
            }
        }
    }
}
