package io.periodtables.local;

import io.periodtables.emulators.Dynalite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@value #NAME} in {@code .flink-local}: an OS file lock held, for as long as it lives, by the one
 * process whose dynalite has the local run's data ({@link Dynalite#LOCAL_RUN_DATA}), a run or
 * {@code --serve}; a run's S3 emulator's files ({@link LocalS3#DATA}) are under it too. The file names the holder's pid
 * and what it is. Without it, a fresh run deleted
 * the data directory under a {@code --serve} (which kept answering for deleted tables), and a
 * resume's dynalite died on LevelDB's own lock with its reason only in {@code dynalite.log}. The
 * lock outside the data directory survives the fresh run's delete; the OS releases it when its
 * process ends, however it ends.
 */
final class DataLock {
    static final String NAME = "dynamodb.lock";

    /** The channel whose lock this process holds, kept open until the JVM ends. */
    private static FileChannel held;

    private DataLock() {}

    /**
     * Takes the lock for this process, described as {@code what} (e.g. {@code ./run-local --serve}).
     *
     * @throws HeldElsewhere naming the holder's pid and what to do, when another process holds it
     */
    static synchronized void take(Path workDir, String what) {
        if (held != null) {
            return;
        }
        Path file = workDir.resolve(NAME);
        try {
            Files.createDirectories(workDir);
            FileChannel channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                String holder = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip();
                channel.close();
                throw HeldElsewhere.of(holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(
                    (ProcessHandle.current().pid() + " " + what + "\n").getBytes(StandardCharsets.UTF_8)));
            channel.force(false);
            held = channel;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + file, e);
        }
    }

    /** Another process has the local run's data: its pid and what it is, as its lock file says. */
    static final class HeldElsewhere extends RuntimeException {
        private static final long serialVersionUID = 1L;

        final String pid;
        final String what;

        private HeldElsewhere(String pid, String what) {
            super(what + " (pid " + pid + ")");
            this.pid = pid;
            this.what = what;
        }

        /** From the lock file's text, {@code <pid> <what>}, which may be empty while its holder writes it. */
        static HeldElsewhere of(String text) {
            String[] parts = text.split(" ", 2);
            return parts.length == 2 && parts[0].matches("\\d+")
                    ? new HeldElsewhere(parts[0], parts[1])
                    : new HeldElsewhere("?", "another ./run-local");
        }

        /** e.g. {@code ./run-local --serve (pid 1234)}. */
        String holder() {
            return getMessage();
        }
    }
}
