package io.periodtables.archive;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.core.fs.FileStatus;

/**
 * Counts the distinct ({@code pk}, {@code sk}) of a period's files exactly, in one pass over their
 * key columns and bounded memory: up to {@link #KEYS_IN_MEMORY} keys are counted in a hash set;
 * more are hash-partitioned into spill files on local disk (the same key always lands in the same
 * partition), then each partition, about half of {@link #KEYS_IN_MEMORY} keys, is counted in a hash
 * set of its own. The spill takes about the keys' size on disk (50 bytes a key for the archive's
 * keys), for the time of the count.
 */
final class DistinctKeys {

    /** Keys held in memory at once, about 150 MB of heap. */
    static final long KEYS_IN_MEMORY = 1_000_000;

    private DistinctKeys() {}

    /**
     * Distinct keys of {@code files}, which hold {@code rows} rows; spill files go to a folder
     * created in {@code spillRoot} and deleted afterwards.
     */
    static long count(List<FileStatus> files, long rows, Path spillRoot) throws IOException {
        return count(files, rows, spillRoot, KEYS_IN_MEMORY);
    }

    /** As {@link #count(List, long, Path)}, holding up to {@code keysInMemory} keys at once. */
    @VisibleForTesting
    static long count(List<FileStatus> files, long rows, Path spillRoot, long keysInMemory) throws IOException {
        if (rows <= keysInMemory) {
            Set<String> keys = new HashSet<>();
            for (FileStatus file : files) {
                ArchiveFiles.readKeys(file, keys::add);
            }
            return keys.size();
        }
        int partitions = (int) ((2 * rows + keysInMemory - 1) / keysInMemory);
        Path spill = Files.createTempDirectory(spillRoot, "archive-keys-");
        try {
            DataOutputStream[] out = new DataOutputStream[partitions];
            try {
                for (int p = 0; p < partitions; p++) {
                    out[p] = new DataOutputStream(new BufferedOutputStream(
                            Files.newOutputStream(spill.resolve(Integer.toString(p))), 1 << 16));
                }
                for (FileStatus file : files) {
                    ArchiveFiles.readKeys(file, key -> {
                        try {
                            out[partition(key, partitions)].writeUTF(key);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
                }
            } finally {
                for (DataOutputStream stream : out) {
                    if (stream != null) {
                        stream.close();
                    }
                }
            }
            long distinct = 0;
            Set<String> keys = new HashSet<>();
            for (int p = 0; p < partitions; p++) {
                keys.clear();
                try (DataInputStream in = new DataInputStream(
                        new BufferedInputStream(Files.newInputStream(spill.resolve(Integer.toString(p))), 1 << 16))) {
                    while (true) {
                        keys.add(in.readUTF());
                    }
                } catch (EOFException end) {
                    distinct += keys.size();
                }
            }
            return distinct;
        } finally {
            try (Stream<Path> left = Files.walk(spill)) {
                for (Path path : left.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    /**
     * The key's partition, from the high bits of its mixed hash: a hash set indexes by the low bits
     * of the same hash, which would otherwise be alike across a partition.
     */
    static int partition(String key, int partitions) {
        long mixed = (key.hashCode() * 0x9E3779B9L) & 0xFFFFFFFFL;
        return (int) ((mixed * partitions) >>> 32);
    }
}
