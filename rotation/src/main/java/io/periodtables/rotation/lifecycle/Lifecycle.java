package io.periodtables.rotation.lifecycle;

import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.TableNaming;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The table life cycle as a pure function of event time (the watermark), the wall clock and the
 * configuration: which period tables may exist, which tier each should have, and which tables
 * retention removes. Same answers for the same inputs, so a replay rolls like the original run.
 *
 * <ul>
 *   <li>A period is <em>open</em> from the moment the watermark is in the period before it until
 *       the watermark closes it ({@link Period#closesAt}: its last millisecond plus
 *       {@code window.allowed-lateness}, Flink's window rule): the open range is the oldest period still in
 *       its grace up to the period after the watermark's. Only open periods get tables at the
 *       {@code current} tier, and only open periods' tables are ever created.
 *   <li>The next period's table is prebuilt once the watermark is within {@code rotation.lead}
 *       of its start.
 *   <li>A closed table is {@code previous} for one period, then {@code older}; a table beyond
 *       the open range (created too early by someone) is {@code older} until its time comes.
 * </ul>
 */
@PublicEvolving
public final class Lifecycle implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Where a period stands at a given event time. */
    @PublicEvolving
    public enum Admission {
        /** Its grace has ended: its table is not created (readings for it go to the late table). */
        CLOSED,
        /** In the open range: its table may be created, at the {@code current} tier. */
        OPEN,
        /** After the period following the watermark's: too early for a table. */
        AHEAD
    }

    private final PeriodCalendar calendar;
    private final Duration lead;
    private final Duration lateness;

    Lifecycle(PeriodCalendar calendar, Duration lead, Duration lateness) {
        this.calendar = calendar;
        this.lead = lead;
        this.lateness = lateness;
    }

    public static Lifecycle of(PeriodTablesConfig config) {
        return new Lifecycle(
                config.calendar(), config.get(ConfigKeys.ROTATION_LEAD), config.get(ConfigKeys.ALLOWED_LATENESS));
    }

    public PeriodCalendar calendar() {
        return calendar;
    }

    public Duration lead() {
        return lead;
    }

    /** {@code window.allowed-lateness}: how long after its end a period stays open. */
    public Duration lateness() {
        return lateness;
    }

    /**
     * Where {@code period} stands when event time is {@code t}. Throws
     * {@link IllegalArgumentException} for an instant outside the years table names support.
     */
    public Admission admission(Period period, Instant t) {
        if (period.closedBy(t, lateness)) {
            return Admission.CLOSED;
        }
        return period.start().isAfter(calendar.next(calendar.periodOf(t)).start()) ? Admission.AHEAD : Admission.OPEN;
    }

    /** The oldest period {@code t} has not closed ({@link Period#closesAt}). */
    public Period oldestOpen(Instant t) {
        return calendar.oldestOpen(t.toEpochMilli(), lateness);
    }

    /** The table to prebuild at {@code t}: the next period's, once {@code t} is within the lead of its start. */
    public Optional<Period> prebuild(Instant t) {
        Period current = calendar.periodOf(t);
        return t.isBefore(current.end().minus(lead)) ? Optional.empty() : Optional.of(calendar.next(current));
    }

    /**
     * The tier {@code period}'s table should have at {@code t}. {@code closedBy} is the event time
     * up to which the sink writers are known to have written everything (their acknowledged
     * watermark): a table is lowered only once {@code closedBy} has closed it.
     */
    public CapacityTier tier(Period period, Instant t, Instant closedBy) {
        if (admission(period, t) == Admission.AHEAD) {
            // Created for readings ahead of the watermark (a shard ahead of the others in a
            // backfill): it takes writes now and will be the current table; lowering it would
            // only throttle them and spend the decrease quota.
            return CapacityTier.CURRENT;
        }
        Instant by = closedBy.isBefore(t) ? closedBy : t;
        if (!period.closedBy(by, lateness)) {
            return CapacityTier.CURRENT;
        }
        return calendar.next(period).closedBy(by, lateness) ? CapacityTier.OLDER : CapacityTier.PREVIOUS;
    }

    /** The tier of {@code period}'s table at {@code t}, everything before {@code t} written. */
    public CapacityTier tier(Period period, Instant t) {
        return tier(period, t, t);
    }

    /**
     * True when retention deletes {@code table}: a period table whose period, or a late table
     * whose UTC write month, ended more than {@code retention} before the watermark {@code t}.
     * Never the rejected table, the tables of the period of {@code t} or of {@code wallClock} and
     * the next ones, nor this month's late table (by either clock).
     */
    public boolean expired(
            TableNaming.TableRef table, TableNaming naming, Instant t, Instant wallClock, Duration retention) {
        if (keep(naming, t, wallClock).contains(table.name())) {
            return false;
        }
        Instant end;
        switch (table.kind()) {
            case PERIOD:
            case ROLLUPS:
                end = table.period().end();
                break;
            case LATE:
                end = table.lateMonth()
                        .plusMonths(1)
                        .atDay(1)
                        .atStartOfDay(ZoneOffset.UTC)
                        .toInstant();
                break;
            default:
                return false;
        }
        return t.isAfter(end.plus(retention));
    }

    private Set<String> keep(TableNaming naming, Instant t, Instant wallClock) {
        Set<String> keep = new HashSet<>();
        for (Instant instant : List.of(t, wallClock)) {
            try {
                Period current = calendar.periodOf(instant);
                keep.add(naming.periodTable(current));
                keep.add(naming.periodTable(calendar.next(current)));
                keep.add(naming.rollupsTable(current));
                keep.add(naming.rollupsTable(calendar.next(current)));
            } catch (IllegalArgumentException outsideLabelledYears) {
                // no table can be named for it, so none to keep
            }
            keep.add(naming.lateTable(instant));
        }
        keep.add(naming.rejectedTable());
        return keep;
    }
}
