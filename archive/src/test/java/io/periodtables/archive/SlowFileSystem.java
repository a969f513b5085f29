package io.periodtables.archive;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;

/**
 * The local file system under the scheme {@code slowfile}, where opening a file and deleting one
 * take {@link #ROUND_TRIP_MS} each, as a request to S3 does; it records how many were in flight at
 * once.
 */
public final class SlowFileSystem extends LocalFileSystem {
    static final String SCHEME = "slowfile";
    static final long ROUND_TRIP_MS = 20;

    private static final AtomicInteger OPENING = new AtomicInteger();
    private static final AtomicInteger MOST_OPENING = new AtomicInteger();
    private static final AtomicInteger DELETING = new AtomicInteger();
    private static final AtomicInteger MOST_DELETING = new AtomicInteger();

    /** The most opens, and deletes, in flight at once since the last call; both back to 0. */
    static int[] mostInFlightAndReset() {
        return new int[] {MOST_OPENING.getAndSet(0), MOST_DELETING.getAndSet(0)};
    }

    @Override
    public URI getUri() {
        return URI.create(SCHEME + ":///");
    }

    @Override
    public FSDataInputStream open(Path path, int bufferSize) throws IOException {
        return open(path);
    }

    @Override
    public FSDataInputStream open(Path path) throws IOException {
        roundTrip(OPENING, MOST_OPENING);
        return super.open(path);
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        roundTrip(DELETING, MOST_DELETING);
        return super.delete(path, recursive);
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return slow(super.getFileStatus(path));
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        FileStatus[] listed = super.listStatus(path);
        if (listed == null) {
            return null;
        }
        FileStatus[] slow = new FileStatus[listed.length];
        for (int i = 0; i < listed.length; i++) {
            slow[i] = slow(listed[i]);
        }
        return slow;
    }

    private static void roundTrip(AtomicInteger inFlight, AtomicInteger most) throws IOException {
        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try {
            Thread.sleep(ROUND_TRIP_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** The status with this file system's scheme, so that what reads it comes back here. */
    private static FileStatus slow(FileStatus local) {
        Path path = new Path(SCHEME, null, local.getPath().toUri().getPath());
        return new FileStatus() {
            @Override
            public long getLen() {
                return local.getLen();
            }

            @Override
            public long getBlockSize() {
                return local.getBlockSize();
            }

            @Override
            public short getReplication() {
                return local.getReplication();
            }

            @Override
            public long getModificationTime() {
                return local.getModificationTime();
            }

            @Override
            public long getAccessTime() {
                return local.getAccessTime();
            }

            @Override
            public boolean isDir() {
                return local.isDir();
            }

            @Override
            public Path getPath() {
                return path;
            }
        };
    }

    /** Found by Flink's file systems on the test class path. */
    public static final class Factory implements FileSystemFactory {
        @Override
        public String getScheme() {
            return SCHEME;
        }

        @Override
        public FileSystem create(URI uri) {
            return new SlowFileSystem();
        }
    }
}
