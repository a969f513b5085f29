package io.periodtables.archive;

import io.periodtables.core.period.Period;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data files this run committed to each period folder, as the file sink's committer names
 * them, kept in {@link ArchiveMarkers}' state until the period's marker is written: exactly the
 * files of this run's checkpoint lineage (after a restore, the committer commits and names again
 * the files of the restored checkpoint), never another run's files in the same folder.
 *
 * <p>Per checkpoint and committer subtask, the committer sends a summary announcing how many files
 * it committed, then one message naming each. After its input has ended it commits the last files
 * at the final checkpoint and can no longer name them: the files a sealed period's folder holds
 * when the input ends are the ones named and another run's, and a file committed later is this
 * run's.
 *
 * <p>A savepoint of a build before the names has none: after restoring one, the files committed
 * before the restore count as this run's too (as every committed file did in that build).
 */
final class ThisRunsFiles {
    private static final Logger LOG = LoggerFactory.getLogger(ThisRunsFiles.class);

    private static final String NAMES = "archive-marker-files";

    private final String archivePath;
    private final ListState<Tuple2<String, String>> state;
    private final ListState<Long> unnamedState;
    /** Files committed up to this time (epoch millis) count as this run's: those of a build without names. */
    private long committedUnnamedUntil = Long.MIN_VALUE;
    /** Per period folder: the names of this run's committed files. */
    private final Map<String, Set<String>> named = new HashMap<>();
    /** Per committer subtask: the files its last summary announced that are not named yet. */
    private final Map<Integer, Integer> announced = new HashMap<>();
    /** Per sealed period folder, once the committer's input ended: the committed files it held then. */
    private Map<String, Set<String>> presentWhenCommitsEnded;

    ThisRunsFiles(String archivePath, OperatorStateStore store, boolean restored) throws Exception {
        this.archivePath = archivePath;
        boolean fromBuildWithoutNames =
                restored && !store.getRegisteredStateNames().contains(NAMES);
        this.state = store.getListState(new ListStateDescriptor<>(NAMES, Types.TUPLE(Types.STRING, Types.STRING)));
        this.unnamedState = store.getListState(new ListStateDescriptor<>("archive-marker-unnamed-until", Types.LONG));
        for (Tuple2<String, String> file : state.get()) {
            named.computeIfAbsent(file.f0, k -> new HashSet<>()).add(file.f1);
        }
        for (long until : unnamedState.get()) {
            committedUnnamedUntil = until;
        }
        if (fromBuildWithoutNames) {
            committedUnnamedUntil = System.currentTimeMillis();
            LOG.info(
                    "The archive markers' state has no file names (a savepoint of an earlier build): the files "
                            + "committed before {} count as this job's",
                    Instant.ofEpochMilli(committedUnnamedUntil));
        }
    }

    /**
     * Takes one message of the committer.
     *
     * @return true when every file the committer announced is named: a check started now misses none
     */
    boolean add(CommittableMessage<FileSinkCommittable> message) {
        if (message instanceof CommittableSummary<FileSinkCommittable> summary) {
            announced.put(summary.getSubtaskId(), summary.getNumberOfCommittables());
        } else if (message instanceof CommittableWithLineage<FileSinkCommittable> committed) {
            announced.merge(committed.getSubtaskId(), -1, Integer::sum);
            FileSinkCommittable file = committed.getCommittable();
            if (file.hasPendingFile() && file.getBucketId().startsWith(ArchivePartitions.PERIOD)) {
                named.computeIfAbsent(file.getBucketId(), k -> new HashSet<>())
                        .add(file.getPendingFile().getPath().getName());
            }
        }
        return announced.values().stream().allMatch(files -> files <= 0);
    }

    /** The committer's input ended: notes the committed files of the folders of {@code sealed}. */
    void commitsEnded(Iterable<Period> sealed) throws IOException {
        presentWhenCommitsEnded = new HashMap<>();
        for (Period period : sealed) {
            sealed(period);
        }
    }

    /** {@code period} is sealed: after the committer's input ended, notes the committed files of its folder. */
    void sealed(Period period) throws IOException {
        if (presentWhenCommitsEnded == null) {
            return;
        }
        Set<String> names = new HashSet<>();
        for (FileStatus file :
                ArchiveFiles.committed(ArchivePartitions.folder(archivePath, ArchivePartitions.period(period)))) {
            names.add(file.getPath().getName());
        }
        presentWhenCommitsEnded.put(ArchivePartitions.period(period), names);
    }

    /** This run's files of {@code period} as known now, for a check on another thread. */
    PeriodMarker.ThisRun of(Period period) {
        String partition = ArchivePartitions.period(period);
        return new PeriodMarker.ThisRun(
                Set.copyOf(named.getOrDefault(partition, Set.of())),
                presentWhenCommitsEnded == null
                        ? null
                        : Set.copyOf(presentWhenCommitsEnded.getOrDefault(partition, Set.of())),
                committedUnnamedUntil);
    }

    /** {@code period}'s marker exists: its files need no names any more. */
    void marked(Period period) {
        named.remove(ArchivePartitions.period(period));
    }

    void snapshot() throws Exception {
        List<Tuple2<String, String>> files = new ArrayList<>();
        named.forEach((partition, names) -> names.forEach(name -> files.add(Tuple2.of(partition, name))));
        state.update(files);
        unnamedState.update(committedUnnamedUntil == Long.MIN_VALUE ? List.of() : List.of(committedUnnamedUntil));
    }
}
