package io.periodtables.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.RecoverableFsDataOutputStream;
import org.apache.flink.core.fs.RecoverableWriter;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.formats.parquet.ParquetWriterFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites a sealed period's many small part files (one per writer subtask and checkpoint) as a
 * few files of about {@link #TARGET_BYTES}, before its marker is written, exactly once and
 * crash-safe.
 *
 * <p>The new files are written with the file system's {@link RecoverableWriter} (as the file sink
 * writes its part files: a hidden file locally, an unfinished multipart upload on S3), so none is
 * visible before it is committed. Then a plan ({@link #PLAN}: the files to replace and the new
 * files' commit recoverables) is written atomically; from then on the compaction is decided: the
 * new files are committed and the old ones deleted, and {@link #resume} redoes both, idempotently,
 * after a crash. Without a plan nothing visible has changed and the compaction starts again. Each
 * new file holds the rows of consecutive part files in their order (each part file's rows sorted by
 * device and event time); files whose schemas differ (format 1 and 2, other {@code archive.columns})
 * never share one.
 */
final class PeriodCompaction {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodCompaction.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How many bytes of part files a compacted file takes: tens of MB, as engines read well. */
    static final long TARGET_BYTES = 64L << 20;

    /** Row groups of a compacted file, as the Parquet writer buffers them: its memory bound. */
    static final int ROW_GROUP_BYTES = 32 << 20;

    /** The plan of a decided compaction, in the period's folder until its marker is written. */
    static final String PLAN = "_COMPACTION";

    /** How compacted files' names start. */
    static final String PREFIX = "compacted-";

    private PeriodCompaction() {}

    /**
     * Finishes the compaction whose plan is in {@code folder}, if any: commits its new files and
     * deletes the files they replace.
     *
     * @return true when there was a plan
     */
    static boolean resume(Path folder) throws IOException {
        Path plan = new Path(folder, PLAN);
        FileSystem fs = folder.getFileSystem();
        if (!fs.exists(plan)) {
            return false;
        }
        JsonNode node;
        try (FSDataInputStream in = fs.open(plan)) {
            node = JSON.readTree(in);
        }
        RecoverableWriter writer = fs.createRecoverableWriter();
        SimpleVersionedSerializer<RecoverableWriter.CommitRecoverable> commits =
                writer.getCommitRecoverableSerializer();
        for (JsonNode target : node.path("targets")) {
            RecoverableWriter.CommitRecoverable recoverable = commits.deserialize(
                    target.path("version").asInt(),
                    Base64.getDecoder().decode(target.path("commit").asText()));
            writer.recoverForCommit(recoverable).commitAfterRecovery();
        }
        List<Path> sources = new ArrayList<>();
        node.path("sources").forEach(source -> sources.add(new Path(folder, source.asText())));
        FileRequests.each(sources, source -> fs.delete(source, false));
        return true;
    }

    /** Deletes the plan: the period's marker is written, the compaction needs no redoing. */
    static void finished(Path folder) throws IOException {
        Path plan = new Path(folder, PLAN);
        folder.getFileSystem().delete(plan, false);
    }

    /**
     * Compacts {@code files}, the committed data files of {@code folder} in name order: runs of
     * consecutive files of up to {@link #TARGET_BYTES} become one file each; a run of one file
     * stays as it is.
     *
     * @return true when files were replaced (a plan is in the folder until {@link #finished})
     */
    static boolean compact(Path folder, List<FileStatus> files) throws IOException {
        removeUnplanned(folder);
        if (!plan(folder, files)) {
            return false;
        }
        resume(folder);
        return true;
    }

    /**
     * Deletes what a compaction interrupted before its plan left: its new files, still hidden (on a
     * local or distributed file system; on S3 an unfinished multipart upload, which the bucket's
     * lifecycle rule aborts). Called only when the folder has no plan, so no file of it is needed.
     */
    private static void removeUnplanned(Path folder) throws IOException {
        FileSystem fs = folder.getFileSystem();
        FileStatus[] listed = fs.listStatus(folder);
        int removed = 0;
        for (FileStatus file : listed == null ? new FileStatus[0] : listed) {
            if (file.getPath().getName().startsWith("." + PREFIX)) {
                fs.delete(file.getPath(), false);
                removed++;
            }
        }
        if (removed > 0) {
            LOG.info("Removed {} files of an interrupted compaction from {}", removed, folder.getName());
        }
    }

    /**
     * Writes the compacted files, uncommitted, and then the plan; changes nothing visible.
     *
     * @return false when there is nothing to compact (no plan written)
     */
    @VisibleForTesting
    static boolean plan(Path folder, List<FileStatus> files) throws IOException {
        List<List<FileStatus>> runs = runs(files);
        if (runs.stream().allMatch(run -> run.size() == 1)) {
            return false;
        }
        FileSystem fs = folder.getFileSystem();
        RecoverableWriter writer = fs.createRecoverableWriter();
        ArrayNode sources = JSON.createArrayNode();
        ArrayNode targets = JSON.createArrayNode();
        String id = UUID.randomUUID().toString();
        int index = 0;
        List<FileStatus> read = runs.stream()
                .filter(run -> run.size() > 1)
                .flatMap(List::stream)
                .toList();
        try (FileRequests.Ahead<InputFile> ahead = FileRequests.ahead(read, ArchiveInputFiles::fetched)) {
            for (List<FileStatus> run : runs) {
                if (run.size() == 1) {
                    continue;
                }
                Output output = null;
                for (FileStatus file : run) {
                    InputFile input = ahead.next();
                    MessageType schema = ArchiveFiles.schemaOf(input);
                    if (output != null && !output.schema.equals(schema)) {
                        targets.add(output.closeForCommit(writer));
                        output = null;
                    }
                    if (output == null) {
                        output = new Output(
                                writer, new Path(folder, PREFIX + id + "-" + index++ + ArchiveParquet.SUFFIX), schema);
                    }
                    ArchiveFiles.readGroups(input, output::write);
                    sources.add(file.getPath().getName());
                }
                targets.add(output.closeForCommit(writer));
            }
        }
        ObjectNode plan = JSON.createObjectNode();
        plan.set("sources", sources);
        plan.set("targets", targets);
        Path temporary = new Path(folder, "." + PLAN + ".tmp");
        try (FSDataOutputStream out = fs.create(temporary, FileSystem.WriteMode.OVERWRITE)) {
            out.write(JSON.writeValueAsBytes(plan));
        }
        if (!fs.rename(temporary, new Path(folder, PLAN))) {
            throw new IOException("cannot rename " + temporary + " to " + PLAN + " in " + folder);
        }
        LOG.info("Compacting {}: {} files into {}", folder.getName(), sources.size(), targets.size());
        return true;
    }

    /** Consecutive files of up to {@link #TARGET_BYTES} together (a larger file alone). */
    static List<List<FileStatus>> runs(List<FileStatus> files) {
        List<List<FileStatus>> runs = new ArrayList<>();
        List<FileStatus> run = new ArrayList<>();
        long bytes = 0;
        for (FileStatus file : files) {
            if (!run.isEmpty() && bytes + file.getLen() > TARGET_BYTES) {
                runs.add(run);
                run = new ArrayList<>();
                bytes = 0;
            }
            run.add(file);
            bytes += file.getLen();
        }
        if (!run.isEmpty()) {
            runs.add(run);
        }
        return runs;
    }

    /** One compacted file being written, invisible until committed. */
    private static final class Output {
        final MessageType schema;
        final RecoverableFsDataOutputStream stream;
        final BulkWriter<Group> parquet;

        Output(RecoverableWriter writer, Path path, MessageType schema) throws IOException {
            this.schema = schema;
            this.stream = writer.open(path);
            Map<String, String> footer = schema.containsField("device")
                    ? Map.of(ArchiveParquet.FORMAT_KEY, ArchiveParquet.FORMAT)
                    : Map.of();
            this.parquet = new ParquetWriterFactory<Group>(out -> ExampleParquetWriter.builder(out)
                            .withType(schema)
                            .withConf(new PlainParquetConfiguration())
                            .withCodecFactory(GzipCodecs.INSTANCE)
                            .withCompressionCodec(CompressionCodecName.GZIP)
                            .withRowGroupSize(ROW_GROUP_BYTES)
                            .withExtraMetaData(footer)
                            .build())
                    .create(stream);
        }

        void write(Group row) {
            try {
                parquet.addElement(row);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Finishes the file and returns its entry of the plan. */
        ObjectNode closeForCommit(RecoverableWriter writer) throws IOException {
            parquet.finish();
            RecoverableWriter.CommitRecoverable recoverable =
                    stream.closeForCommit().getRecoverable();
            SimpleVersionedSerializer<RecoverableWriter.CommitRecoverable> commits =
                    writer.getCommitRecoverableSerializer();
            ObjectNode target = JSON.createObjectNode();
            target.put("version", commits.getVersion());
            target.put("commit", Base64.getEncoder().encodeToString(commits.serialize(recoverable)));
            return target;
        }
    }
}
