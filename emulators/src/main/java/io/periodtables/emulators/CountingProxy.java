package io.periodtables.emulators;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * A loopback HTTP/1.1 forwarder in front of an AWS emulator that counts the API calls passing
 * through it by operation (the {@code X-Amz-Target} header, e.g. {@code GetRecords}). It sees
 * every client, also those that a connector builds inside Flink with its own (shaded) SDK, so
 * it measures what a source really asks of the service. GetRecords calls are also counted by
 * shard: the proxy follows each shard's iterators, from the GetShardIterator that named the shard
 * through every NextShardIterator (JSON bodies: kinesalite's clients run with CBOR off).
 */
public final class CountingProxy implements AutoCloseable {
    /** Headers that the JDK client sets itself or refuses, and hop-by-hop response headers. */
    private static final Set<String> NOT_FORWARDED = Set.of(
            "connection",
            "content-length",
            "date",
            "expect",
            "from",
            "host",
            "upgrade",
            "via",
            "warning",
            "transfer-encoding",
            "keep-alive");

    static {
        // Without it, the JDK server writes headers and body as two segments and Nagle's algorithm
        // meets the client's delayed ACK: every call would take about 40 ms longer.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final ExecutorService workers;
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI target;
    private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> getRecordsByShard = new ConcurrentHashMap<>();
    /** Shard iterator → its shard. */
    private final Map<String, String> iterators = new ConcurrentHashMap<>();

    private final ObjectMapper json = new ObjectMapper();

    private CountingProxy(URI target) throws IOException {
        this.target = target;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        this.workers = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "counting-proxy");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(workers);
        server.createContext("/", this::forward);
        server.start();
    }

    /** Starts forwarding from a free loopback port to {@code target} ({@code http://host:port}). */
    public static CountingProxy start(URI target) throws IOException {
        return new CountingProxy(target);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Calls of {@code operation} so far. */
    public long count(String operation) {
        LongAdder n = calls.get(operation);
        return n == null ? 0 : n.sum();
    }

    /** Calls so far, by operation. */
    public Map<String, Long> counts() {
        Map<String, Long> snapshot = new TreeMap<>();
        calls.forEach((operation, n) -> snapshot.put(operation, n.sum()));
        return snapshot;
    }

    /** GetRecords calls so far, by shard id ("(unknown)" for an iterator the proxy did not see issued). */
    public Map<String, Long> getRecordsByShard() {
        Map<String, Long> snapshot = new TreeMap<>();
        getRecordsByShard.forEach((shard, n) -> snapshot.put(shard, n.sum()));
        return snapshot;
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            String amzTarget = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            String operation = amzTarget == null ? "(none)" : amzTarget.substring(amzTarget.indexOf('.') + 1);
            calls.computeIfAbsent(operation, o -> new LongAdder()).increment();
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(
                            target.resolve(exchange.getRequestURI().toString()))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase())) {
                    values.forEach(value -> request.header(name, value));
                }
            });
            HttpResponse<byte[]> response;
            try {
                response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.sendResponseHeaders(503, -1);
                return;
            } catch (IOException e) {
                exchange.sendResponseHeaders(502, -1);
                return;
            }
            response.headers().map().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase()) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, List.copyOf(values));
                }
            });
            byte[] answer = response.body();
            followIterators(operation, body, response.statusCode() == 200 ? answer : null);
            exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        }
    }

    private void followIterators(String operation, byte[] request, byte[] answer) throws IOException {
        if (operation.equals("GetShardIterator") && answer != null) {
            iterators.put(
                    json.readTree(answer).path("ShardIterator").asText(),
                    json.readTree(request).path("ShardId").asText());
        } else if (operation.equals("GetRecords")) {
            String shard = iterators.getOrDefault(
                    json.readTree(request).path("ShardIterator").asText(), "(unknown)");
            getRecordsByShard.computeIfAbsent(shard, s -> new LongAdder()).increment();
            JsonNode next = answer == null ? null : json.readTree(answer).get("NextShardIterator");
            if (next != null && !next.isNull()) {
                iterators.put(next.asText(), shard);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
    }
}
