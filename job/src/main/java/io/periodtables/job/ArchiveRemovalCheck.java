package io.periodtables.job;

import io.periodtables.archive.Archive;
import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.archive.StoredItems;
import io.periodtables.model.SinkRecord;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamGraphHasherV2;
import org.apache.flink.streaming.api.graph.StreamNode;

/**
 * Refuses, as the job is built, a restore without {@code archive.path} from a savepoint that holds
 * the archive's state, in the one line that names the key. Flink would refuse it first, at the
 * JobManager, naming only an operator id: the archive's state has no operator in a job without an
 * archive (docs/operations.md, {@code allowNonRestoredState}).
 */
final class ArchiveRemovalCheck {

    private ArchiveRemovalCheck() {}

    /**
     * Throws a {@link ConfigException} naming {@code archive.path} when the restore in {@code flink} drops an archive.
     */
    static void check(ReadableConfig flink, PeriodTablesConfig config) {
        Optional<String> savepoint = flink.getOptional(StateRecoveryOptions.SAVEPOINT_PATH);
        if (savepoint.isEmpty() || config.find(ConfigKeys.ARCHIVE_PATH).isPresent()) {
            return;
        }
        Map<OperatorID, String> archive = archiveOperators(config);
        CheckpointMetadata metadata;
        try {
            metadata = metadata(savepoint.get());
        } catch (IOException unreadable) {
            return; // Flink reports a savepoint it cannot read, as it reads it
        }
        for (OperatorState operator : metadata.getOperatorStates()) {
            String uid = archive.get(operator.getOperatorID());
            if (uid != null && holdsState(operator)) {
                throw new ConfigException(
                        ConfigKeys.ARCHIVE_PATH.name(),
                        "Invalid configuration: archive.path = '(unset)' cannot change across a restore: the savepoint"
                                + " was taken with an archive, whose state it holds; set archive.path back, or start"
                                + " without the savepoint (docs/operations.md, What may change across a redeploy)");
            }
        }
    }

    /** The archive's operators (those with a uid) by id, as {@code config} with an archive would have them. */
    private static Map<OperatorID, String> archiveOperators(PeriodTablesConfig config) {
        // an archive needs the late table; the uids are the same whatever the other settings
        PeriodTablesConfig archived =
                config.with(ConfigKeys.LATE_POLICY, "late-table").with(ConfigKeys.ARCHIVE_PATH, "file:///archive");
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration());
        Archive.attach(
                env.fromSequence(0, 0).map(n -> (SinkRecord) null, TypeInformation.of(SinkRecord.class)),
                archived,
                new StoredItems(archived));
        StreamGraph graph = env.getStreamGraph();
        Map<Integer, byte[]> hashes = new StreamGraphHasherV2().traverseStreamGraphAndGenerateHashes(graph);
        Map<OperatorID, String> operators = new HashMap<>();
        for (StreamNode node : graph.getStreamNodes()) {
            if (node.getTransformationUID() != null) {
                operators.put(new OperatorID(hashes.get(node.getId())), node.getTransformationUID());
            }
        }
        return operators;
    }

    private static CheckpointMetadata metadata(String savepoint) throws IOException {
        try (DataInputStream in =
                new DataInputStream(AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(savepoint)
                        .getMetadataHandle()
                        .openInputStream())) {
            return Checkpoints.loadCheckpointMetadata(in, ArchiveRemovalCheck.class.getClassLoader(), savepoint);
        }
    }

    private static boolean holdsState(OperatorState operator) {
        return operator.getCoordinatorState() != null
                || operator.getStates().stream().anyMatch(OperatorSubtaskState::hasState);
    }
}
