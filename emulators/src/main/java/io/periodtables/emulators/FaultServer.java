package io.periodtables.emulators;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback HTTP server that plays a faulty DynamoDB endpoint. {@link DynamoDbFaults} redirects a
 * request here and says in headers what to do with it: answer with a canned DynamoDB error, reset
 * the connection, or wait and then forward it to the real endpoint. Being a real server, the SDK
 * (sync or async Netty) sees real status codes, bodies, resets and timeouts. Stateless: a retried
 * request carries the same instruction. One server per JVM, started on first use.
 */
final class FaultServer {
    private static final Logger LOG = LoggerFactory.getLogger(FaultServer.class);
    static final String KIND = "x-period-tables-fault";
    static final String MESSAGE = "x-period-tables-fault-message";
    static final String DELAY_MILLIS = "x-period-tables-fault-delay-ms";
    static final String TARGET = "x-period-tables-fault-target";
    private static final List<String> NOT_FORWARDED = List.of(
            "host", "content-length", "connection", "expect", "transfer-encoding", KIND, MESSAGE, DELAY_MILLIS, TARGET);

    private static volatile FaultServer instance;

    private final ServerSocket socket;
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dynamodb-fault-server");
        t.setDaemon(true);
        return t;
    });

    private FaultServer() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "dynamodb-fault-server-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        LOG.info("DynamoDB fault server listening on 127.0.0.1:{}", socket.getLocalPort());
    }

    static FaultServer instance() {
        if (instance == null) {
            synchronized (FaultServer.class) {
                if (instance == null) {
                    try {
                        instance = new FaultServer();
                    } catch (IOException e) {
                        throw new IllegalStateException("cannot start the DynamoDB fault server", e);
                    }
                }
            }
        }
        return instance;
    }

    int port() {
        return socket.getLocalPort();
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket connection = socket.accept();
                workers.execute(() -> serve(connection));
            } catch (IOException e) {
                LOG.warn("fault server accept failed", e);
            }
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            InputStream in = new BufferedInputStream(connection.getInputStream());
            String requestLine = readLine(in);
            Map<String, String> headers = readHeaders(in);
            byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
            FaultKind kind = FaultKind.valueOf(headers.get(KIND));
            switch (kind) {
                case CONNECTION_RESET -> connection.setSoLinger(true, 0);
                case DELAY -> forwardLater(connection.getOutputStream(), requestLine, headers, body);
                case UNPROCESSED_ITEMS ->
                    respond(
                            connection.getOutputStream(),
                            200,
                            Map.of(),
                            "{\"UnprocessedItems\":{}}".getBytes(StandardCharsets.UTF_8));
                default ->
                    respond(
                            connection.getOutputStream(),
                            kind.status(),
                            Map.of(),
                            errorBody(
                                    kind,
                                    headers.containsKey(MESSAGE)
                                            ? URLDecoder.decode(headers.get(MESSAGE), StandardCharsets.UTF_8)
                                            : kind.message()));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("fault server connection ended", e);
        }
    }

    private static byte[] errorBody(FaultKind kind, String message) {
        String json = "{\"__type\":\"" + kind.errorType() + "\",\"message\":\""
                + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    /** Waits, then executes the request at the real endpoint; the client may be gone by then. */
    private static void forwardLater(OutputStream out, String requestLine, Map<String, String> headers, byte[] body)
            throws IOException {
        try {
            Thread.sleep(Long.parseLong(headers.get(DELAY_MILLIS)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        String path = requestLine.split(" ")[1];
        HttpURLConnection forward = (HttpURLConnection)
                URI.create(headers.get(TARGET) + path).toURL().openConnection();
        forward.setRequestMethod(requestLine.split(" ")[0]);
        headers.forEach((name, value) -> {
            if (!NOT_FORWARDED.contains(name)) {
                forward.setRequestProperty(name, value);
            }
        });
        forward.setDoOutput(body.length > 0);
        if (body.length > 0) {
            try (OutputStream forwardBody = forward.getOutputStream()) {
                forwardBody.write(body);
            }
        }
        int status = forward.getResponseCode();
        InputStream answer = status >= 400 ? forward.getErrorStream() : forward.getInputStream();
        byte[] answerBody = answer == null ? new byte[0] : answer.readAllBytes();
        Map<String, String> answerHeaders = new LinkedHashMap<>();
        forward.getHeaderFields().forEach((name, values) -> {
            if (name != null && !NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                answerHeaders.put(name, String.join(",", values));
            }
        });
        respond(out, status, answerHeaders, answerBody);
    }

    private static void respond(OutputStream out, int status, Map<String, String> headers, byte[] body)
            throws IOException {
        StringBuilder head = new StringBuilder("HTTP/1.1 ")
                .append(status)
                .append(status < 400 ? " OK" : " Error")
                .append("\r\nContent-Type: application/x-amz-json-1.0\r\n");
        if (!headers.containsKey("x-amzn-RequestId")) {
            head.append("x-amzn-RequestId: ").append(UUID.randomUUID()).append("\r\n");
        }
        headers.forEach((name, value) -> {
            if (!name.equalsIgnoreCase("content-type")) {
                head.append(name).append(": ").append(value).append("\r\n");
            }
        });
        head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private static Map<String, String> readHeaders(InputStream in) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            headers.put(
                    line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    line.substring(colon + 1).trim());
        }
        return headers;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed inside the request head");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }
}
