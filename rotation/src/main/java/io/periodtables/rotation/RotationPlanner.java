package io.periodtables.rotation;

import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodCalendar;
import io.periodtables.conf.PeriodTablesConfig;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The table life cycle as a function of time (the watermark, or the wall clock for the guard):
 * which tables must exist, and which tier a period's table is in. Pure; the same answers for
 * the same instant, so a replay rolls exactly like the original run.
 *
 * <ul>
 *   <li>the table of the period containing {@code t} must exist, and from {@code periodEnd −
 *       rotation.lead} on the next period's table too;
 *   <li>a table is {@code CURRENT} until {@code periodEnd + window.allowed-lateness}, then
 *       {@code PREVIOUS} until one period later, then {@code OLDER}.
 * </ul>
 */
final class RotationPlanner implements Serializable {
    private static final long serialVersionUID = 1L;

    private final PeriodCalendar calendar;
    private final Duration lead;
    private final Duration lateness;

    RotationPlanner(PeriodCalendar calendar, Duration lead, Duration lateness) {
        this.calendar = calendar;
        this.lead = lead;
        this.lateness = lateness;
    }

    Duration lead() {
        return lead;
    }

    static RotationPlanner of(PeriodTablesConfig config) {
        return new RotationPlanner(config.calendar(), config.get(ConfigKeys.ROTATION_LEAD),
                config.get(ConfigKeys.ALLOWED_LATENESS));
    }

    /**
     * The periods whose tables must exist at {@code t}: its own first, then the next one once
     * {@code t} is within the lead of the rollover. Throws {@link IllegalArgumentException}
     * for an instant no table can be named for (outside years 0001-9999).
     */
    List<Period> periodsNeededAt(Instant t) {
        Period current = calendar.periodOf(t);
        if (!t.isBefore(current.end().minus(lead))) {
            return List.of(current, calendar.next(current));
        }
        return List.of(current);
    }

    /**
     * The periods strictly between the one containing {@code from} and the one containing
     * {@code to}, oldest first, at most {@code max} of them (the newest ones when there are more).
     */
    List<Period> periodsBetween(Instant from, Instant to, int max) {
        Period last = calendar.periodOf(to);
        java.util.ArrayDeque<Period> between = new java.util.ArrayDeque<>();
        for (Period p = calendar.previous(last); p.end().isAfter(from) && !p.contains(from); p = calendar.previous(p)) {
            between.addFirst(p);
            if (between.size() == max) {
                break;
            }
        }
        return List.copyOf(between);
    }

    /** The tier of {@code period}'s table at {@code t}. */
    CapacityTier tierAt(Period period, Instant t) {
        if (t.isBefore(period.end().plus(lateness))) {
            return CapacityTier.CURRENT;
        }
        if (t.isBefore(calendar.next(period).end().plus(lateness))) {
            return CapacityTier.PREVIOUS;
        }
        return CapacityTier.OLDER;
    }
}
