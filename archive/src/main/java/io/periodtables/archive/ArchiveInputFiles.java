package io.periodtables.archive;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet input files of the archive: streamed from Flink's file system, or fetched whole into
 * memory first, so that the round trips of many small files can overlap ({@link FileRequests}).
 */
final class ArchiveInputFiles {
    /**
     * Files up to this size are fetched whole: a part file of a few seconds' or minutes' rows. A
     * larger one is streamed, one round trip being little against its transfer. With {@link
     * FileRequests#AT_ONCE} fetched ahead of the one being read, this bounds their memory at 36 MB.
     */
    static final long FETCHED_WHOLE_BYTES = 4L << 20;

    private ArchiveInputFiles() {}

    /** The file read as a stream from its file system, where Parquet seeks. */
    static InputFile streamed(FileStatus file) {
        return new Streamed(file);
    }

    /** The file's bytes read now when it is small ({@link #FETCHED_WHOLE_BYTES}), else streamed. */
    static InputFile fetched(FileStatus file) throws IOException {
        if (file.getLen() > FETCHED_WHOLE_BYTES) {
            return streamed(file);
        }
        byte[] bytes = new byte[(int) file.getLen()];
        try (FSDataInputStream in = file.getPath().getFileSystem().open(file.getPath())) {
            int read = in.readNBytes(bytes, 0, bytes.length);
            if (read < bytes.length) {
                throw new IOException(file.getPath() + " ended after " + read + " of " + bytes.length + " bytes");
            }
        }
        return new Fetched(file, bytes);
    }

    private static final class Streamed implements InputFile {
        private final FileStatus status;

        Streamed(FileStatus status) {
            this.status = status;
        }

        @Override
        public long getLength() {
            return status.getLen();
        }

        @Override
        public SeekableInputStream newStream() throws IOException {
            FSDataInputStream in = status.getPath().getFileSystem().open(status.getPath());
            return new DelegatingSeekableInputStream(in) {
                @Override
                public long getPos() throws IOException {
                    return in.getPos();
                }

                @Override
                public void seek(long newPos) throws IOException {
                    in.seek(newPos);
                }
            };
        }

        @Override
        public String toString() {
            return status.getPath().toString();
        }
    }

    private static final class Fetched implements InputFile {
        private final FileStatus status;
        private final byte[] bytes;

        Fetched(FileStatus status, byte[] bytes) {
            this.status = status;
            this.bytes = bytes;
        }

        @Override
        public long getLength() {
            return bytes.length;
        }

        @Override
        public SeekableInputStream newStream() {
            Positioned in = new Positioned(bytes);
            return new DelegatingSeekableInputStream(in) {
                @Override
                public long getPos() {
                    return in.position();
                }

                @Override
                public void seek(long newPos) {
                    in.seek(newPos);
                }
            };
        }

        @Override
        public String toString() {
            return status.getPath().toString();
        }
    }

    /** A stream over bytes that seeks: {@link ByteArrayInputStream} keeps its position in {@code pos}. */
    private static final class Positioned extends ByteArrayInputStream {
        Positioned(byte[] bytes) {
            super(bytes);
        }

        long position() {
            return pos;
        }

        void seek(long position) {
            pos = (int) Math.min(position, count);
        }
    }
}
