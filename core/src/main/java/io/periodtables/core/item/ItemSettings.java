package io.periodtables.core.item;

import io.periodtables.core.period.PeriodCalendar;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The configuration as the stored items see it. {@code PeriodTablesConfig} implements it: the
 * configuration is built from the items' rules (sharding, rollup grains, archive columns), so the
 * items take their settings through this view and never depend on the configuration.
 */
@PublicEvolving
public interface ItemSettings {

    /** The item keys' rule of {@code tables.shards}. */
    WriteSharding sharding();

    /** {@code tables.ttl}, when set. */
    Optional<Duration> ttl();

    /** The periods of {@code tables.period} and {@code tables.zone}. */
    PeriodCalendar calendar();

    /** {@code rollups.every}, when set. */
    Optional<List<Duration>> rollupGrains();

    /** {@code rollups.fields}, when set. */
    Optional<List<String>> rollupFields();
}
