package io.periodtables.archive;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.Preconditions;

/**
 * Adds the archive to a job (docs/archive.md): every reading of the records given, as the
 * period-table sink stores it, becomes a Parquet row under {@code archive.path}, written by
 * Flink's {@code FileSink} (part files rolled and committed on every checkpoint: exactly once);
 * each period's folder gets its {@code _SUCCESS} marker once the watermark has passed its end
 * plus the allowed lateness and all its files are committed.
 *
 * <p>Operator uids: {@code archive-rows}, {@code archive-sink} (the file sink's writer and
 * committer) and {@code archive-markers}.
 */
@PublicEvolving
public final class Archive {

    private Archive() {}

    /**
     * Archives the readings of {@code stored}: the records the period-table sink receives (period
     * and late readings; rejections are skipped), items built by {@code items}.
     */
    public static void attach(DataStream<SinkRecord> stored, PeriodTablesConfig config, ArchiveItems items) {
        Preconditions.checkArgument(config.find(ConfigKeys.ARCHIVE_PATH).isPresent(), "archive.path is not set");
        Preconditions.checkArgument(
                config.get(ConfigKeys.LATE_POLICY) == ConfigKeys.LatePolicy.LATE_TABLE,
                "archive.path needs late.policy=late-table");
        SingleOutputStreamOperator<ArchiveRow> rows = stored.transform(
                        "Archive rows", TypeInformation.of(ArchiveRow.class), new ToArchiveRows(config, items))
                .uid("archive-rows");
        rows.sinkTo(new ArchiveSink(config, rows.getSideOutput(ToArchiveRows.PERIOD_ROWS)))
                .uid("archive-sink")
                .name("Archive (Parquet)");
    }
}
