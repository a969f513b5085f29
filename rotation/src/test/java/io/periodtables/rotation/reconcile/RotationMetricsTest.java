package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** The rotation's gauges as a dashboard (and the local run's status line) reads them. */
class RotationMetricsTest {

    /** Captures the gauges registered in it, by name. */
    private static final class Gauges extends UnregisteredMetricsGroup {
        final Map<String, Gauge<?>> gauges = new HashMap<>();

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(name, gauge);
            return gauge;
        }

        Object value(String name) {
            return gauges.get(name).getValue();
        }
    }

    private static ManagedTable table(String name, Capacity capacity) {
        return new ManagedTable(name, "ACTIVE", capacity, false, 0, null, null, false, ManagedTable.STANDARD, 0);
    }

    /**
     * A start's or a restore's pass sees the tables before the first watermark: the watermark's table's
     * WCU is known from then on, not only at the next pass (on a resume, up to a period boundary later).
     */
    @Test
    void theOpenTablesWcuIsKnownFromTheWatermarkOnWhenAPassHasSeenTheTable() {
        Gauges group = new Gauges();
        RotationMetrics metrics = new RotationMetrics(group);
        assertThat(group.value(UserMetrics.OPEN_TABLE_PROVISIONED_WCU)).isEqualTo(-1L);

        metrics.observe(List.of(
                table("readings_2026-12-07T0941", new Capacity(1, 100, false)),
                table("readings_2026-12-07T0942", new Capacity(2858, 300, false)),
                table("readings_latest", Capacity.ON_DEMAND)));
        metrics.openTable("readings_2026-12-07T0942", 0);
        assertThat(group.value(UserMetrics.OPEN_TABLE_PROVISIONED_WCU)).isEqualTo(2858L);

        // a table no pass has seen yet: unknown until the next pass, which sees it
        metrics.openTable("readings_2026-12-07T0943", 0);
        assertThat(group.value(UserMetrics.OPEN_TABLE_PROVISIONED_WCU)).isEqualTo(-1L);
        metrics.observe(List.of(table("readings_2026-12-07T0943", new Capacity(2858, 300, false))));
        assertThat(group.value(UserMetrics.OPEN_TABLE_PROVISIONED_WCU)).isEqualTo(2858L);
    }
}
