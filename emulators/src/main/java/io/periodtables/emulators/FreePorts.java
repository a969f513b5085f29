package io.periodtables.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Picks a TCP port that is free on the loopback interface right now. */
final class FreePorts {
    private FreePorts() {}

    static int onLoopback() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }
}
