package io.periodtables.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The TCP sockets listening on this machine, as the Linux kernel lists them in
 * {@code /proc/net/tcp} and {@code tcp6}: those on a port, or those a process owns (the socket
 * inodes among its file descriptors, {@code /proc/<pid>/fd}). Tests use it to prove that what
 * they start binds the loopback interface only. IPv4-mapped IPv6 addresses come back as IPv4.
 */
public final class ListeningSockets {
    private static final String LISTEN = "0A";
    private static final Pattern SOCKET = Pattern.compile("socket:\\[(\\d+)]");

    private ListeningSockets() {}

    /** True where the kernel's socket tables can be read (Linux). */
    public static boolean available() {
        return Files.exists(Path.of("/proc/net/tcp")) && Files.isDirectory(Path.of("/proc/self/fd"));
    }

    /** The local addresses listening on {@code port}, whoever owns them. */
    public static List<InetAddress> addressesListeningOn(int port) {
        return listening(address -> true).stream()
                .filter(address -> address.getPort() == port)
                .map(InetSocketAddress::getAddress)
                .toList();
    }

    /** The local addresses the process {@code pid} listens on. */
    public static List<InetSocketAddress> ofProcess(long pid) {
        Set<String> inodes = socketInodes(pid);
        return listening(inodes::contains);
    }

    private static List<InetSocketAddress> listening(Predicate<String> inode) {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.exists(path)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(path);
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    if (f[3].equals(LISTEN) && inode.test(f[9])) {
                        String[] local = f[1].split(":");
                        addresses.add(new InetSocketAddress(decode(local[0]), Integer.parseInt(local[1], 16)));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return addresses;
    }

    private static Set<String> socketInodes(long pid) {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            fds.forEach(fd -> {
                try {
                    Matcher m = SOCKET.matcher(Files.readSymbolicLink(fd).toString());
                    if (m.matches()) {
                        inodes.add(m.group(1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while listing
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return inodes;
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
}
