package io.periodtables.job.archive;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.core.period.Period;
import io.periodtables.rotation.lifecycle.RetentionGate;
import java.io.IOException;
import org.apache.flink.annotation.Internal;

/**
 * Retention's gate when the job archives: a period is archived once its {@code _SUCCESS} marker exists under {@code
 * archive.path}.
 */
@Internal
public final class ArchivedPeriods implements RetentionGate {
    private static final long serialVersionUID = 1L;

    private final String archivePath;

    public ArchivedPeriods(String archivePath) {
        this.archivePath = archivePath;
    }

    @Override
    public boolean archived(Period period) throws IOException {
        return new ArchiveReader(archivePath).isArchived(period);
    }

    @Override
    public String where(Period period) {
        return ArchivePartitions.marker(archivePath, period).toString();
    }
}
