package io.periodtables.emulators;

import java.io.IOException;
import java.io.InputStream;

/**
 * The main class of {@link S3Emulator}'s child JVM: starts s3proxy ({@code org.gaul.s3proxy.Main}
 * with the same arguments), prints {@code LISTENING} once it serves, and exits when its standard
 * input closes, which is what happens when the JVM that started it goes away. s3proxy is on the
 * child's class path only, so it is called by name.
 */
final class S3ProxyMain {
    private S3ProxyMain() {}

    public static void main(String[] args) throws Exception {
        Thread watch = new Thread(
                () -> {
                    try (InputStream in = System.in) {
                        while (in.read() >= 0) {
                            // a parent that writes to us has nothing to say yet
                        }
                    } catch (IOException ignored) {
                        // the parent is gone either way
                    }
                    System.exit(0);
                },
                "parent-watch");
        watch.setDaemon(true);
        watch.start();
        Class.forName("org.gaul.s3proxy.Main").getMethod("main", String[].class).invoke(null, (Object) args);
        System.out.println("LISTENING");
        System.out.flush();
    }
}
