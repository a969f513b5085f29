package io.periodtables.job.rotation;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.archive.ArchivedPeriods;
import io.periodtables.model.Reading;
import io.periodtables.rotation.Rotation;
import io.periodtables.rotation.lifecycle.TableLoad;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Joins the sink and the rotation, which do not know each other: the sinks ask the rotation's
 * table owner ({@link Rotation#tableOwner()}) about missing and throttled tables and report what
 * they have written through under their writer groups, which the rotation waits for before it
 * lowers a closed table; the rotation operator is fed by a sparse side stream of the readings and
 * their write load.
 */
@Internal
public final class RotationWiring {
    /** The writer group of the period records' sink. */
    public static final String PERIOD_WRITERS = "period";
    /**
     * The writer group of the late and rejected records' sink (with late.policy=period-table, late readings go to
     * period tables).
     */
    public static final String LATE_WRITERS = "late";

    private RotationWiring() {}

    /**
     * The writer groups a closed table waits for: those that can write a period table. The late and
     * rejected records' sink writes one only with {@code late.policy=period-table}; otherwise a
     * backlog or a failure of its own (the late or rejected table throttled, its report lost) would
     * hold period tables at their open tier for nothing.
     */
    static List<String> writerGroups(PeriodTablesConfig config) {
        return config.get(ConfigKeys.LATE_POLICY) == ConfigKeys.LatePolicy.PERIOD_TABLE
                ? List.of(PERIOD_WRITERS, LATE_WRITERS)
                : List.of(PERIOD_WRITERS);
    }

    /**
     * Adds the rotation operator, fed by a sparse side stream of {@code readings} and the sink's
     * write {@code load} per table and second (the next table is sized from its peak); with
     * {@code archive.path}, retention deletes a table only once its period is archived.
     */
    public static void attach(
            DataStream<Reading> readings, DataStream<TableLoad> load, PeriodTablesConfig config, String writerRun) {
        DataStream<Long> ticks = readings.process(new RotationTicks(), Types.LONG)
                // the readings' parallelism keeps it in their task: a stateless filter, no hop
                .setParallelism(readings.getParallelism())
                .uid("rotation-ticks")
                .name("Rotation ticks");
        Rotation.Builder rotation =
                Rotation.builder(config).waitForWriters(writerGroups(config)).writerRun(writerRun);
        config.find(ConfigKeys.ARCHIVE_PATH).ifPresent(path -> rotation.retentionGate(new ArchivedPeriods(path)));
        rotation.attach(ticks, load);
    }
}
