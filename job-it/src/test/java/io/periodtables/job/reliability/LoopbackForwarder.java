package io.periodtables.job.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on 127.0.0.2 to dynalite on 127.0.0.1. The job gives fixed dummy
 * credentials to an endpoint named {@code 127.0.0.1} or {@code localhost} only; through this
 * address its clients use the SDK's default credential chain, as against real DynamoDB.
 */
final class LoopbackForwarder implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    LoopbackForwarder(URI target) throws IOException {
        this.targetPort = target.getPort();
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
        Thread acceptor = new Thread(this::accept, "loopback-forwarder");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.2:" + server.getLocalPort());
    }

    private void accept() {
        try {
            while (!server.isClosed()) {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            }
        } catch (IOException closed) {
            // the forwarder was closed
        }
    }

    private static void pipe(Socket from, Socket to) {
        Thread copy = new Thread(
                () -> {
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
                },
                "loopback-forwarder-pipe");
        copy.setDaemon(true);
        copy.start();
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
        sockets.forEach(LoopbackForwarder::closeQuietly);
    }
}
