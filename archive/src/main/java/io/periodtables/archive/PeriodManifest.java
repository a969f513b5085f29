package io.periodtables.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The content of a period's {@code _SUCCESS} marker, a small JSON object: the period's label, the
 * rows of its committed data files, how many distinct items ({@code pk}, {@code sk}) they hold
 * (the item count of the period table), and how many data files there are.
 */
@PublicEvolving
public record PeriodManifest(String period, long rows, long distinctKeys, int files) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The manifest in {@code marker}, or empty when there is no such file. */
    public static Optional<PeriodManifest> read(Path marker) throws IOException {
        FileSystem fs = marker.getFileSystem();
        if (!fs.exists(marker)) {
            return Optional.empty();
        }
        try (FSDataInputStream in = fs.open(marker)) {
            JsonNode node = JSON.readTree(in);
            return Optional.of(new PeriodManifest(
                    node.path("period").asText(),
                    node.path("rows").asLong(),
                    node.path("distinctKeys").asLong(),
                    node.path("files").asInt()));
        }
    }

    /**
     * Writes this manifest to {@code marker} unless a marker is there already: a hidden temporary
     * file first, then a rename, so that no reader sees a half-written marker.
     *
     * @return false when a marker existed (it is left as it was)
     */
    boolean writeOnce(Path marker) throws IOException {
        FileSystem fs = marker.getFileSystem();
        if (fs.exists(marker)) {
            return false;
        }
        ObjectNode node = JSON.createObjectNode();
        node.put("period", period)
                .put("rows", rows)
                .put("distinctKeys", distinctKeys)
                .put("files", files);
        Path temporary = new Path(marker.getParent(), "." + marker.getName() + ".tmp");
        try (FSDataOutputStream out = fs.create(temporary, FileSystem.WriteMode.OVERWRITE)) {
            out.write(JSON.writeValueAsBytes(node));
        }
        if (!fs.rename(temporary, marker)) {
            fs.delete(temporary, false);
            if (!fs.exists(marker)) {
                throw new IOException("cannot rename " + temporary + " to " + marker);
            }
            return false;
        }
        return true;
    }
}
