package io.periodtables.archive;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's {@link FileSink} for the archive's Parquet rows, one folder per row's partition, part
 * files rolled and committed on every checkpoint (exactly once), plus a post-commit step: the
 * {@link ArchiveMarkers} operator, which sees every commit and compacts each closed period's files
 * ({@link PeriodCompaction}). Writer, state and committer are the file sink's own (the committer
 * tolerates part files compacted since the checkpoint it restores), so its savepoint state is that
 * of a plain {@code FileSink}; compaction keeps no operator state (its plan is a file in the folder).
 */
@Internal
final class ArchiveSink
        implements Sink<ArchiveRow>,
                SupportsWriterState<ArchiveRow, FileWriterBucketState>,
                SupportsCommitter<FileSinkCommittable>,
                SupportsPostCommitTopology<FileSinkCommittable> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveSink.class);

    static final String MARKERS_UID = "archive-markers";

    private final FileSink<ArchiveRow> files;
    private final String archivePath;
    private final PeriodTablesConfig config;
    /** Only used while the job graph is built; the marker operator joins it to the commits. */
    private final transient DataStream<PeriodRows> periodRows;

    ArchiveSink(PeriodTablesConfig config, DataStream<PeriodRows> periodRows) {
        this.archivePath = config.get(ConfigKeys.ARCHIVE_PATH);
        this.config = config;
        this.periodRows = periodRows;
        this.files = FileSink.forBulkFormat(
                        new Path(archivePath),
                        ArchiveParquet.writerFactory(
                                config.find(ConfigKeys.ARCHIVE_COLUMNS).orElse(List.of())))
                .withBucketAssigner(new ByPartition())
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .withOutputFileConfig(OutputFileConfig.builder()
                        .withPartPrefix("part")
                        .withPartSuffix(ArchiveParquet.SUFFIX)
                        .build())
                .build();
    }

    @Override
    @SuppressWarnings("deprecation")
    public SinkWriter<ArchiveRow> createWriter(InitContext context) throws IOException {
        return files.createWriter(context);
    }

    @Override
    public StatefulSinkWriter<ArchiveRow, FileWriterBucketState> createWriter(WriterInitContext context)
            throws IOException {
        return files.createWriter(context);
    }

    @Override
    public StatefulSinkWriter<ArchiveRow, FileWriterBucketState> restoreWriter(
            WriterInitContext context, Collection<FileWriterBucketState> recoveredState) throws IOException {
        return files.restoreWriter(context, recoveredState);
    }

    @Override
    public SimpleVersionedSerializer<FileWriterBucketState> getWriterStateSerializer() {
        return files.getWriterStateSerializer();
    }

    @Override
    public Committer<FileSinkCommittable> createCommitter(CommitterInitContext context) throws IOException {
        return new AfterCompaction(files.createCommitter(context), archivePath);
    }

    @Override
    public SimpleVersionedSerializer<FileSinkCommittable> getCommittableSerializer() {
        return files.getCommittableSerializer();
    }

    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<FileSinkCommittable>> committed) {
        committed
                .global()
                .connect(periodRows.global())
                .transform(
                        "Archive markers",
                        Types.VOID,
                        new ArchiveMarkers(archivePath, config.calendar(), config.get(ConfigKeys.ALLOWED_LATENESS)))
                .uid(MARKERS_UID)
                .setParallelism(1)
                .setMaxParallelism(1);
    }

    /**
     * The file sink's committer, for a restore after a compaction: a restored checkpoint commits its
     * part files again, and where {@link PeriodCompaction} has replaced them since (the period's
     * folder has a plan or a marker), S3 cannot find them and fails the commit; their rows are in
     * the compacted files, so they count as committed. Locally a missing file is no error.
     */
    private static final class AfterCompaction implements Committer<FileSinkCommittable> {
        private final Committer<FileSinkCommittable> committer;
        private final String archivePath;

        AfterCompaction(Committer<FileSinkCommittable> committer, String archivePath) {
            this.committer = committer;
            this.archivePath = archivePath;
        }

        @Override
        public void commit(Collection<CommitRequest<FileSinkCommittable>> requests)
                throws IOException, InterruptedException {
            for (CommitRequest<FileSinkCommittable> request : requests) {
                try {
                    committer.commit(List.of(request));
                } catch (IOException e) {
                    Path folder = ArchivePartitions.folder(
                            archivePath, request.getCommittable().getBucketId());
                    FileSystem fs = folder.getFileSystem();
                    if (!fs.exists(new Path(folder, PeriodCompaction.PLAN))
                            && !fs.exists(new Path(folder, ArchivePartitions.MARKER))) {
                        throw e;
                    }
                    LOG.info("A part file of {} is compacted already: {}", folder.getName(), e.getMessage());
                    request.signalAlreadyCommitted();
                }
            }
        }

        @Override
        public void close() throws Exception {
            committer.close();
        }
    }

    /** Files each row under its partition folder. */
    private static final class ByPartition implements BucketAssigner<ArchiveRow, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getBucketId(ArchiveRow row, Context context) {
            return row.partition();
        }

        @Override
        public SimpleVersionedSerializer<String> getSerializer() {
            return SimpleVersionedStringSerializer.INSTANCE;
        }
    }
}
