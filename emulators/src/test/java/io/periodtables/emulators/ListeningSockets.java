package io.periodtables.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The local addresses the kernel lists as listening on a TCP port (Linux, from /proc/net/tcp*). */
final class ListeningSockets {
    private static final String LISTEN = "0A";

    private ListeningSockets() {
    }

    /** The addresses listening on {@code port}; an IPv4-mapped IPv6 address comes back as IPv4. */
    static List<InetAddress> addressesListeningOn(int port) {
        List<InetAddress> addresses = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.exists(path)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(path);
                for (String line : lines.subList(1, lines.size())) {
                    String[] fields = line.trim().split("\\s+");
                    String[] local = fields[1].split(":");
                    if (fields[3].equals(LISTEN) && Integer.parseInt(local[1], 16) == port) {
                        addresses.add(decode(local[0]));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return addresses;
    }

    /** The kernel prints each 32-bit word of the address in host (little-endian) byte order. */
    private static InetAddress decode(String hex) throws UnknownHostException {
        byte[] bytes = new byte[hex.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int i = 0; i < 4; i++) {
                int at = (word * 4 + 3 - i) * 2;
                bytes[word * 4 + i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        return InetAddress.getByAddress(bytes);
    }

    static boolean available() {
        return Files.exists(Path.of("/proc/net/tcp"));
    }
}
