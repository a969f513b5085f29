package io.periodtables.emulators;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback stand-in for Application Auto Scaling, which has no emulator: it speaks the
 * service's JSON protocol ({@code X-Amz-Target: AnyScaleFrontendService.<Operation>}, AWS JSON
 * 1.1) for {@code RegisterScalableTarget}, {@code PutScalingPolicy} and {@code
 * DeregisterScalableTarget}, keeps the registered targets as the service would (a policy or a
 * deregistration for an unknown target fails with {@code ObjectNotFoundException}), and records
 * every request with the {@link System#nanoTime()} it arrived at, so a test can order it against
 * other calls. Its threads are daemons; {@link #close()} stops it.
 */
public final class AutoScalingEndpoint implements AutoCloseable {
    private static final String TARGET_PREFIX = "AnyScaleFrontendService.";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request as it arrived. */
    public record Call(long nanoTime, String operation, JsonNode body) {
        /**
         * {@code resourceId / scalableDimension}, e.g. {@code table/readings_2026-11-23 /
         * dynamodb:table:WriteCapacityUnits}.
         */
        public String target() {
            return body.path("ResourceId").asText() + " / "
                    + body.path("ScalableDimension").asText();
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "auto-scaling-endpoint");
        t.setDaemon(true);
        return t;
    });
    private final List<Call> calls = new ArrayList<>();
    private final Set<String> targets = ConcurrentHashMap.newKeySet();

    private AutoScalingEndpoint() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts an endpoint on 127.0.0.1 and a free port. */
    public static AutoScalingEndpoint start() {
        try {
            return new AutoScalingEndpoint();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the Application Auto Scaling endpoint", e);
        }
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Every request so far, in arrival order. */
    public List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** The targets registered now, as {@link Call#target()}. */
    public Set<String> registered() {
        return Set.copyOf(targets);
    }

    private void handle(HttpExchange exchange) throws IOException {
        long arrived = System.nanoTime();
        try (InputStream in = exchange.getRequestBody()) {
            String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            String operation =
                    target != null && target.startsWith(TARGET_PREFIX) ? target.substring(TARGET_PREFIX.length()) : "";
            byte[] bytes = in.readAllBytes();
            Call call = new Call(
                    arrived,
                    operation,
                    JSON.readTree(bytes.length == 0 ? "{}".getBytes(StandardCharsets.UTF_8) : bytes));
            synchronized (calls) {
                calls.add(call);
            }
            String key = call.target();
            switch (operation) {
                case "RegisterScalableTarget" -> {
                    targets.add(key);
                    reply(exchange, 200, "{}");
                }
                case "PutScalingPolicy" -> {
                    if (targets.contains(key)) {
                        reply(
                                exchange,
                                200,
                                "{\"PolicyARN\":\"arn:aws:autoscaling:us-east-1:000000000000:scalingPolicy:local:"
                                        + "resource/dynamodb/"
                                        + call.body().path("ResourceId").asText() + ":policyName/"
                                        + call.body().path("PolicyName").asText() + "\",\"Alarms\":[]}");
                    } else {
                        notFound(exchange, key);
                    }
                }
                case "DeregisterScalableTarget" -> {
                    if (targets.remove(key)) {
                        reply(exchange, 200, "{}");
                    } else {
                        notFound(exchange, key);
                    }
                }
                default ->
                    reply(
                            exchange,
                            400,
                            "{\"__type\":\"UnknownOperationException\",\"Message\":\"" + operation + "\"}");
            }
        }
    }

    private static void notFound(HttpExchange exchange, String key) throws IOException {
        reply(
                exchange,
                400,
                "{\"__type\":\"ObjectNotFoundException\",\"Message\":\"No scalable target registered for "
                        + key.replace("\"", "") + "\"}");
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.1");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
