package io.periodtables.job;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.model.Reading;
import io.periodtables.rotation.Rotation;
import io.periodtables.rotation.TableManager;
import io.periodtables.sink.MissingTableHandler;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.concurrent.CompletableFuture;

/**
 * Joins the sink and the rotation, which do not know each other: the sink's missing-table hook
 * is the rotation's {@link TableManager}, and the rotation operator is fed by a sparse side
 * stream of the readings.
 */
final class RotationWiring {

    private RotationWiring() {}

    /** The sink's missing-table hook: the table manager creates the table and waits until it is active. */
    static MissingTableHandler.Factory missingTableHandler(PeriodTablesConfig config) {
        return cfg -> new TableManagerHandler(TableManager.create(cfg));
    }

    /** Adds the rotation operator, fed by a sparse side stream of {@code readings}. */
    static void attach(DataStream<Reading> readings, PeriodTablesConfig config) {
        DataStream<Long> ticks = readings
                .process(new RotationTicks(), Types.LONG)
                .uid("rotation-ticks").name("Rotation ticks");
        Rotation.attach(ticks, config);
    }

    private static final class TableManagerHandler implements MissingTableHandler {
        private final TableManager manager;

        TableManagerHandler(TableManager manager) {
            this.manager = manager;
        }

        @Override
        public CompletableFuture<Void> ensureTable(String tableName) {
            return manager.ensureTable(tableName).thenApply(ensured -> null);
        }

        @Override
        public void close() {
            manager.close();
        }
    }
}
