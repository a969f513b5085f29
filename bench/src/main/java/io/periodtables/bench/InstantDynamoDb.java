package io.periodtables.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * An instant DynamoDB on 127.0.0.1: a small Netty HTTP server that answers {@code BatchWriteItem}
 * with success (no unprocessed items) without reading the body, and keeps just enough table
 * metadata for the rotation ({@code CreateTable}, {@code DescribeTable}, {@code UpdateTable},
 * TTL and tags; a table's capacity decreases of the UTC day are reported as DynamoDB does, never
 * refused). The writers table ({@code <prefix>_writers}) is kept: its conditional
 * {@code PutItem}s and its {@code Query} are answered as DynamoDB would, so the rotation sees the
 * writers' acknowledged watermarks and a bounded run ends without the finish timeout. Every other
 * {@code PutItem} (the latest table's and the rollups' conditional puts) succeeds unread.
 * Pointing {@code dynamodb.endpoint} at it measures the pipeline's own capacity; with {@code
 * BENCH_RTT_MS} its answers take a round trip as DynamoDB's do (see {@link #RTT_MILLIS}).
 * Its event-loop threads are named {@value #THREAD_PREFIX}, so their CPU time can be told apart.
 */
public final class InstantDynamoDb implements AutoCloseable {

    static final String THREAD_PREFIX = "instant-dynamodb";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] BATCH_WRITTEN = "{\"UnprocessedItems\":{}}".getBytes(StandardCharsets.UTF_8);
    private static final byte[] PUT_DONE = "{}".getBytes(StandardCharsets.UTF_8);
    private static final String WRITERS_SUFFIX = "_writers";
    /** A UTC day: DynamoDB counts a table's decreases per UTC day. */
    private static final long DAY_MILLIS = TimeUnit.DAYS.toMillis(1);

    /**
     * The median round trip of every answer ({@code BENCH_RTT_MS}, environment; 0: at once). Each
     * answer waits a log-normal delay with that median and sigma 0.5 (p90 1.9 times it, p99 3.2
     * times), at most 20 times it: DynamoDB's answers in a region have such a tail.
     */
    static final double RTT_MILLIS = Double.parseDouble(System.getenv().getOrDefault("BENCH_RTT_MS", "0"));

    private static final double RTT_SIGMA = 0.5;

    private final NioEventLoopGroup group;
    private final Channel channel;
    private final Map<String, long[]> tables = new ConcurrentHashMap<>();
    /** Wall-clock millis of each table's capacity decreases, which the rotation's decrease quota reads back. */
    private final Map<String, List<Long>> decreases = new ConcurrentHashMap<>();

    private final AtomicLong batchWrites = new AtomicLong();
    /** Told every item written (BatchWriteItem and PutItem) with its table, when set ({@link #countWrites}). */
    private volatile BiConsumer<String, JsonNode> writes;
    /** The writers tables' items: table, then hash key ({@code writer}), then range key ({@code subtask}). */
    private final Map<String, Map<String, Map<String, JsonNode>>> writers = new ConcurrentHashMap<>();

    private InstantDynamoDb(int threads) throws InterruptedException {
        group = new NioEventLoopGroup(threads, new DefaultThreadFactory(THREAD_PREFIX, true));
        channel = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        new HttpServerCodec(),
                                        new HttpObjectAggregator(16 * 1024 * 1024),
                                        new Handler());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .sync()
                .channel();
    }

    public static InstantDynamoDb start(int threads) throws InterruptedException {
        return new InstantDynamoDb(threads);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + ((InetSocketAddress) channel.localAddress()).getPort());
    }

    long batchWrites() {
        return batchWrites.get();
    }

    /** From now on, every item a request writes goes to {@code counter} with its table (bodies are then read). */
    public void countWrites(BiConsumer<String, JsonNode> counter) {
        this.writes = counter;
    }

    /** CPU seconds used so far by the server's event-loop threads. */
    public static double cpuSeconds() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long nanos = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(THREAD_PREFIX)) {
                nanos += Math.max(threads.getThreadCpuTime(t.getId()), 0);
            }
        }
        return nanos / 1e9;
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws IOException {
            String target = request.headers().get("X-Amz-Target", "");
            String operation = target.substring(target.indexOf('.') + 1);
            FullHttpResponse response;
            BiConsumer<String, JsonNode> counter = writes;
            if (counter != null && (operation.equals("BatchWriteItem") || operation.equals("PutItem"))) {
                JsonNode body = JSON.readTree(request.content().toString(StandardCharsets.UTF_8));
                if (operation.equals("PutItem")) {
                    counter.accept(body.path("TableName").asText(), body.path("Item"));
                } else {
                    body.path("RequestItems")
                            .fields()
                            .forEachRemaining(table -> table.getValue()
                                    .forEach(put -> counter.accept(
                                            table.getKey(),
                                            put.path("PutRequest").path("Item"))));
                }
            }
            if (operation.equals("BatchWriteItem")) {
                batchWrites.incrementAndGet();
                response = json(HttpResponseStatus.OK, Unpooled.wrappedBuffer(BATCH_WRITTEN));
            } else if (operation.equals("PutItem") || operation.equals("Query")) {
                String text = request.content().toString(StandardCharsets.UTF_8);
                response = text.contains(WRITERS_SUFFIX + "\"")
                        ? writersTable(operation, JSON.readTree(text))
                        : json(HttpResponseStatus.OK, Unpooled.wrappedBuffer(PUT_DONE));
            } else {
                JsonNode body = JSON.readTree(request.content().toString(StandardCharsets.UTF_8));
                response = controlPlane(operation, body);
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            HttpUtil.setKeepAlive(response, keepAlive);
            long delay = roundTripNanos();
            if (delay == 0) {
                ctx.writeAndFlush(response);
            } else {
                ctx.executor().schedule(() -> ctx.writeAndFlush(response), delay, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** A round trip of the latency mode; 0 without one. */
    private static long roundTripNanos() {
        if (RTT_MILLIS <= 0) {
            return 0;
        }
        double factor =
                Math.min(20, Math.exp(RTT_SIGMA * ThreadLocalRandom.current().nextGaussian()));
        return (long) (RTT_MILLIS * factor * 1_000_000);
    }

    private FullHttpResponse controlPlane(String operation, JsonNode body) throws IOException {
        String name = body.path("TableName").asText(null);
        ObjectNode out = JSON.createObjectNode();
        switch (operation) {
            case "CreateTable" -> {
                JsonNode throughput = body.path("ProvisionedThroughput");
                long[] capacity = {
                    throughput.path("WriteCapacityUnits").asLong(0),
                    throughput.path("ReadCapacityUnits").asLong(0)
                };
                if (tables.putIfAbsent(name, capacity) != null) {
                    return error("ResourceInUseException", "Table already exists: " + name);
                }
                out.set("TableDescription", describe(name));
            }
            case "DescribeTable", "UpdateTable", "DeleteTable" -> {
                long[] capacity = tables.get(name);
                if (capacity == null) {
                    return error(
                            "ResourceNotFoundException", "Requested resource not found: Table: " + name + " not found");
                }
                if (operation.equals("UpdateTable")) {
                    JsonNode throughput = body.path("ProvisionedThroughput");
                    long write = throughput.path("WriteCapacityUnits").asLong(capacity[0]);
                    long read = throughput.path("ReadCapacityUnits").asLong(capacity[1]);
                    if (write < capacity[0] || read < capacity[1]) {
                        decreases
                                .computeIfAbsent(name, t -> new CopyOnWriteArrayList<>())
                                .add(System.currentTimeMillis());
                    }
                    capacity[0] = write;
                    capacity[1] = read;
                }
                out.set(operation.equals("DescribeTable") ? "Table" : "TableDescription", describe(name));
                if (operation.equals("DeleteTable")) {
                    tables.remove(name);
                    decreases.remove(name);
                }
            }
            case "ListTables" -> {
                ArrayNode names = out.putArray("TableNames");
                tables.keySet().stream().sorted().forEach(names::add);
            }
            case "ListTagsOfResource" -> out.putArray("Tags");
            case "UpdateTimeToLive" -> out.set("TimeToLiveSpecification", body.path("TimeToLiveSpecification"));
            default -> {} // TagResource, DescribeTimeToLive, ...: an empty success
        }
        return json(HttpResponseStatus.OK, Unpooled.wrappedBuffer(JSON.writeValueAsBytes(out)));
    }

    /**
     * The writers table's two calls: a put under its condition (see {@code WritersTable}: the
     * attempt never goes back, and with {@code :a} nor the acknowledged watermark within an
     * attempt), a query of one writer's items.
     */
    private synchronized FullHttpResponse writersTable(String operation, JsonNode body) throws IOException {
        Map<String, Map<String, JsonNode>> table =
                writers.computeIfAbsent(body.path("TableName").asText(), t -> new ConcurrentHashMap<>());
        JsonNode values = body.path("ExpressionAttributeValues");
        ObjectNode out = JSON.createObjectNode();
        if (operation.equals("Query")) {
            ArrayNode items = out.putArray("Items");
            String writer = values.path(":w").path("S").asText();
            table.getOrDefault(writer, Map.of()).values().forEach(items::add);
            out.put("Count", items.size());
            out.put("ScannedCount", items.size());
            return json(HttpResponseStatus.OK, Unpooled.wrappedBuffer(JSON.writeValueAsBytes(out)));
        }
        JsonNode item = body.path("Item");
        Map<String, JsonNode> items =
                table.computeIfAbsent(item.path("writer").path("S").asText(), w -> new ConcurrentHashMap<>());
        String subtask = item.path("subtask").path("S").asText();
        JsonNode stored = items.get(subtask);
        if (stored != null) {
            long attempt = values.path(":t").path("N").asLong();
            long storedAttempt = stored.path("attempt").path("N").asLong();
            boolean accepted = values.has(":a")
                    ? storedAttempt < attempt
                            || (storedAttempt == attempt
                                    && stored.path("acknowledged").path("N").asLong()
                                            <= values.path(":a").path("N").asLong())
                    : storedAttempt <= attempt;
            if (!accepted) {
                return error("ConditionalCheckFailedException", "The conditional request failed");
            }
        }
        items.put(subtask, item);
        return json(HttpResponseStatus.OK, Unpooled.wrappedBuffer(PUT_DONE));
    }

    private ObjectNode describe(String name) {
        long[] capacity = tables.get(name);
        ObjectNode t = JSON.createObjectNode();
        t.put("TableName", name);
        t.put("TableStatus", "ACTIVE");
        t.put("TableArn", "arn:aws:dynamodb:us-east-1:000000000000:table/" + name);
        t.put("ItemCount", 0);
        ArrayNode keys = t.putArray("KeySchema");
        keys.addObject().put("AttributeName", "pk").put("KeyType", "HASH");
        keys.addObject().put("AttributeName", "sk").put("KeyType", "RANGE");
        ArrayNode attributes = t.putArray("AttributeDefinitions");
        attributes.addObject().put("AttributeName", "pk").put("AttributeType", "S");
        attributes.addObject().put("AttributeName", "sk").put("AttributeType", "S");
        if (capacity[0] == 0) {
            t.putObject("BillingModeSummary").put("BillingMode", "PAY_PER_REQUEST");
            t.putObject("ProvisionedThroughput").put("WriteCapacityUnits", 0).put("ReadCapacityUnits", 0);
        } else {
            t.putObject("BillingModeSummary").put("BillingMode", "PROVISIONED");
            ObjectNode throughput = t.putObject("ProvisionedThroughput")
                    .put("WriteCapacityUnits", capacity[0])
                    .put("ReadCapacityUnits", capacity[1]);
            List<Long> decreased = decreases.getOrDefault(name, List.of());
            long today = System.currentTimeMillis() / DAY_MILLIS;
            throughput.put(
                    "NumberOfDecreasesToday",
                    decreased.stream().filter(d -> d / DAY_MILLIS == today).count());
            if (!decreased.isEmpty()) {
                // epoch seconds, as DynamoDB's JSON protocol sends a timestamp
                throughput.put("LastDecreaseDateTime", decreased.get(decreased.size() - 1) / 1000.0);
            }
        }
        return t;
    }

    private static FullHttpResponse error(String type, String message) throws IOException {
        ObjectNode out = JSON.createObjectNode();
        out.put("__type", "com.amazonaws.dynamodb.v20120810#" + type);
        out.put("message", message);
        return json(HttpResponseStatus.BAD_REQUEST, Unpooled.wrappedBuffer(JSON.writeValueAsBytes(out)));
    }

    private static FullHttpResponse json(HttpResponseStatus status, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/x-amz-json-1.0");
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        response.headers().set("x-amzn-RequestId", "instant");
        return response;
    }
}
