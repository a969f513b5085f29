package io.periodtables.archive;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.time.Instant;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.fs.Path;

/**
 * The archive's folders under {@code archive.path}, Hive style so that Athena and Spark read the
 * folder names as a column: {@code period=<label>/} holds the items of a period table (the label
 * of its table name), {@code late=<yyyy-MM>/} those of a late table; {@code period=<label>/_SUCCESS}
 * is the period's completion marker ({@link PeriodManifest}).
 */
@PublicEvolving
public final class ArchivePartitions {

    /** The name of a period's completion marker in its folder. */
    public static final String MARKER = "_SUCCESS";

    static final String PERIOD = "period=";
    static final String LATE = "late=";

    private ArchivePartitions() {}

    /** {@code period=<label>}: the folder of the period table of {@code period}. */
    public static String period(Period period) {
        return PERIOD + period.label();
    }

    /** {@code late=<yyyy-MM>}: the folder of the late table of readings made late at {@code lateAt}. */
    public static String late(Instant lateAt) {
        return LATE + TableNaming.lateMonth(lateAt);
    }

    /** The folder {@code partition} under the archive's root. */
    public static Path folder(String archivePath, String partition) {
        return new Path(archivePath, partition);
    }

    /** The completion marker of {@code period} under the archive's root. */
    public static Path marker(String archivePath, Period period) {
        return new Path(folder(archivePath, period(period)), MARKER);
    }
}
