package io.periodtables.emulators;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A loopback TCP forwarder in front of an S3 endpoint that records every request passing through
 * it as an {@link S3Call}. The bytes go through unchanged: Signature V4 signs the {@code Host}
 * header, so a proxy that re-sent the requests would break every signature. Requests are read as
 * HTTP/1.1 with {@code Content-Length} bodies (the AWS SDKs' {@code aws-chunked} uploads are that
 * too); a request body of another form is recorded as method {@code UNPARSED} and the connection
 * is then passed on blindly.
 */
public final class S3CallRecorder implements AutoCloseable {
    private static final Pattern DELETED_KEY = Pattern.compile("<Key>(.*?)</Key>", Pattern.DOTALL);

    private final ServerSocket server;
    private final int targetPort;
    private final List<S3Call> calls = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private S3CallRecorder(URI target) throws IOException {
        this.targetPort = target.getPort();
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::accept, "s3-call-recorder");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts forwarding from a free loopback port to {@code target} ({@code http://127.0.0.1:port}). */
    public static S3CallRecorder start(URI target) throws IOException {
        return new S3CallRecorder(target);
    }

    /** {@code http://127.0.0.1:<port>}: give this to the client instead of the target. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** The requests so far, in the order they were sent. */
    public List<S3Call> calls() {
        return List.copyOf(calls);
    }

    private void accept() {
        try {
            while (!server.isClosed()) {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                start("s3-call-recorder-requests", () -> requests(client, upstream));
                start("s3-call-recorder-responses", () -> copy(upstream, client));
            }
        } catch (IOException closed) {
            // the recorder was closed
        }
    }

    private void requests(Socket from, Socket to) {
        try (InputStream in = new BufferedInputStream(from.getInputStream());
                OutputStream out = to.getOutputStream()) {
            while (true) {
                byte[] head = head(in);
                if (head == null) {
                    return;
                }
                out.write(head);
                out.flush(); // a client that sent "Expect: 100-continue" waits for the answer first
                String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
                Map<String, String> headers = new LinkedHashMap<>();
                for (int i = 1; i < lines.length; i++) {
                    int colon = lines[i].indexOf(':');
                    if (colon > 0) {
                        headers.put(
                                lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                                lines[i].substring(colon + 1).trim());
                    }
                }
                String[] requestLine = lines[0].split(" ");
                if (headers.containsKey("transfer-encoding")) {
                    calls.add(new S3Call("UNPARSED", lines[0], "", Map.of(), Optional.empty(), List.of()));
                    in.transferTo(out);
                    return;
                }
                long length = Long.parseLong(headers.getOrDefault("content-length", "0"));
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                boolean keep = requestLine[0].equals("POST") && requestLine[1].contains("?delete");
                for (long left = length; left > 0; ) {
                    byte[] buffer = in.readNBytes((int) Math.min(left, 64 * 1024));
                    if (buffer.length == 0) {
                        return;
                    }
                    out.write(buffer);
                    if (keep) {
                        body.write(buffer);
                    }
                    left -= buffer.length;
                }
                out.flush();
                calls.add(call(requestLine[0], requestLine[1], headers, body.toString(StandardCharsets.UTF_8)));
            }
        } catch (IOException ended) {
            // one side closed the connection
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** The request line and headers up to the empty line, or null at the end of the stream. */
    private static byte[] head(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
        }
        return head.toByteArray();
    }

    private static S3Call call(String method, String target, Map<String, String> headers, String body) {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        Map<String, String> query = new LinkedHashMap<>();
        if (q >= 0) {
            for (String pair : target.substring(q + 1).split("&")) {
                int eq = pair.indexOf('=');
                query.put(decode(eq < 0 ? pair : pair.substring(0, eq)), eq < 0 ? "" : decode(pair.substring(eq + 1)));
            }
        }
        String[] parts = path.substring(1).split("/", 2);
        List<String> deleted = new ArrayList<>();
        Matcher keys = DELETED_KEY.matcher(body);
        while (keys.find()) {
            deleted.add(keys.group(1));
        }
        return new S3Call(
                method,
                decode(parts[0]),
                parts.length < 2 ? "" : decode(parts[1]),
                query,
                Optional.ofNullable(headers.get("x-amz-copy-source"))
                        .map(s -> decode(s.startsWith("/") ? s.substring(1) : s)),
                deleted);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private void copy(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ended) {
            // one side closed the connection
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void start(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(S3CallRecorder::closeQuietly);
    }
}
