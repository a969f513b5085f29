package io.periodtables.rotation.lifecycle;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.Set;

/**
 * The difference between one table as it is and as the {@link Lifecycle} wants it: the next
 * action, or none. Pure; the {@link io.periodtables.rotation.reconcile.Reconciler Reconciler} asks
 * it for every table it knows on every pass.
 * In order: delete a table past {@code tables.retention} (with a {@link RetentionGate}, only once
 * its {@linkplain #archiveOf archive period} is archived); move a period table to its tier (a
 * table raised less than {@code rotation.lead} ago, because the sink was throttled on it, is not
 * lowered yet; a closed table the writers have not written through is left as it is; an open
 * table is raised to the size this run measured for it ({@link OpenCapacity#measured}),
 * never lowered; a table lowered before and still
 * at a closed tier is never raised: a replay behind it writes it as it is); prewarm a rollups
 * table of a period not closed to its {@link OpenCapacity#rollupsWarmWrites}; enable TTL when
 * {@code tables.ttl} is set.
 */
public final class TablePlan {

    /** What to do to a table. */
    public enum Kind {
        DELETE,
        SET_TIER,
        /** An open on-demand table below the warm throughput its load calls for. */
        WARM,
        ENABLE_TTL
    }

    /**
     * One action; for {@code SET_TIER} the tier, whether it lowers capacity, why, in words, and
     * the capacity to set.
     */
    public record Action(
            Kind kind,
            CapacityTier tier,
            boolean decrease,
            String why,
            Capacity target,
            String tableClass,
            long warmWrites) {
        Action(Kind kind, CapacityTier tier, boolean decrease, String why) {
            this(kind, tier, decrease, why, null, null, 0);
        }
    }

    /**
     * What a plan is made from besides the table.
     *
     * @param watermark the event-time watermark, null before the first
     * @param lowerBy the event time up to which the sink writers have written everything (their
     *     acknowledged watermark, or the watermark when the rotation waits for no writers)
     * @param ttlOn tables whose TTL is known to be on
     * @param leftAlone expired tables retention must not touch (not ours, or deletion protection)
     * @param archived periods known archived; null when retention waits for no archive
     */
    public record View(
            Instant watermark,
            Instant lowerBy,
            Instant wallClock,
            Set<String> ttlOn,
            Set<String> leftAlone,
            Set<Period> archived) {}

    private final PeriodTablesConfig config;
    private final Lifecycle lifecycle;
    private final TableNaming naming;
    private final Duration raisedHold;
    private final OpenCapacity open;
    private final String closedClass;

    public TablePlan(PeriodTablesConfig config, Lifecycle lifecycle, OpenCapacity open) {
        this.config = config;
        this.open = open;
        this.lifecycle = lifecycle;
        this.naming = config.naming();
        this.raisedHold = config.get(ConfigKeys.ROTATION_LEAD);
        this.closedClass = config.get(TableKeys.TABLES_CLASS_CLOSED).name();
    }

    public Optional<Action> actionFor(String name, ManagedTable table, View view) {
        Optional<TableNaming.TableRef> ref = naming.parse(name);
        if (ref.isEmpty() || !table.isActive() || ref.get().kind() == TableNaming.TableRef.Kind.REJECTED) {
            return Optional.empty();
        }
        if (expired(ref.get(), view) && archiveAwaited(ref.get(), view).isEmpty()) {
            return Optional.of(new Action(Kind.DELETE, null, false, "past tables.retention"));
        }
        if (view.watermark() != null && ref.get().kind() == TableNaming.TableRef.Kind.PERIOD) {
            Optional<Action> tier = tierAction(ref.get(), table, view);
            if (tier.isPresent()) {
                return tier;
            }
        }
        if (view.watermark() != null && ref.get().kind() == TableNaming.TableRef.Kind.ROLLUPS) {
            Optional<Action> warm = rollupsWarmAction(ref.get(), table, view);
            if (warm.isPresent()) {
                return warm;
            }
        }
        if (config.ttl().isPresent() && !view.ttlOn().contains(name)) {
            return Optional.of(new Action(Kind.ENABLE_TTL, null, false, "tables.ttl is set"));
        }
        return Optional.empty();
    }

    /**
     * The period whose archive retention waits for before it deletes {@code name}: present when
     * the table is past retention, retention waits for an archive, and that period is not known
     * archived.
     */
    public Optional<Period> awaitedArchive(String name, ManagedTable table, View view) {
        Optional<TableNaming.TableRef> ref = naming.parse(name);
        if (ref.isEmpty() || !table.isActive() || !expired(ref.get(), view)) {
            return Optional.empty();
        }
        return archiveAwaited(ref.get(), view);
    }

    /**
     * The period whose {@code _SUCCESS} marker gates the deletion of {@code table}: a period
     * table's own period; for the late table of a month, the period holding the first instant of
     * the next month: its marker is written after the watermark passed the month's end, and late
     * rows are filed under the month of the watermark that made them late, so by then every row
     * of the month's late table has reached the archive. A rollups table goes with its period's
     * table (its rollups can be computed again from the archived readings).
     */
    Period archiveOf(TableNaming.TableRef table) {
        if (table.kind() == TableNaming.TableRef.Kind.PERIOD || table.kind() == TableNaming.TableRef.Kind.ROLLUPS) {
            return table.period();
        }
        // Never past the labelled years: a late table expires only by a watermark beyond its month's end.
        return lifecycle
                .calendar()
                .periodOf(table.lateMonth()
                        .plusMonths(1)
                        .atDay(1)
                        .atStartOfDay(ZoneOffset.UTC)
                        .toInstant());
    }

    private boolean expired(TableNaming.TableRef ref, View view) {
        if (view.watermark() == null || view.leftAlone().contains(ref.name())) {
            return false;
        }
        Optional<Duration> retention = config.find(TableKeys.TABLES_RETENTION);
        return retention.isPresent()
                && lifecycle.expired(ref, naming, view.watermark(), view.wallClock(), retention.get());
    }

    /** For an expired table: the period whose archive it still waits for, if any. */
    private Optional<Period> archiveAwaited(TableNaming.TableRef ref, View view) {
        if (view.archived() == null) {
            return Optional.empty();
        }
        Period period = archiveOf(ref);
        return view.archived().contains(period) ? Optional.empty() : Optional.of(period);
    }

    private Optional<Action> tierAction(TableNaming.TableRef ref, ManagedTable table, View view) {
        CapacityTier tier = lifecycle.tier(ref.period(), view.watermark(), view.lowerBy());
        if (tier == CapacityTier.CURRENT
                && lifecycle.admission(ref.period(), view.watermark()) == Lifecycle.Admission.CLOSED) {
            // closed, but the writers have not written it through: neither lowered nor raised yet
            return Optional.empty();
        }
        Capacity target = tier == CapacityTier.CURRENT ? open.of(ref.period()) : config.effectiveCapacity(tier);
        if (tier == CapacityTier.CURRENT
                && !target.onDemand()
                && !table.capacity().onDemand()) {
            // An existing open table is raised to what this run measured, not to the `current` tier:
            // that is a size to create a table at. When the run has not observed the period it is
            // sized from (a replay or a restart without state that begins after it), or saw it only
            // in part, whoever created the table sized it (an earlier run from the same event-time
            // peak, or the owner at the current tier); a sink its writes throttle has it raised
            // (TableOwner#throttled).
            target = open.measured(ref.period()).orElse(table.capacity());
        }
        if (lowered(table) && !target.onDemand()) {
            // A replay behind a table an earlier run lowered: written at its tier (the sink backs
            // off, and raises it only when throttled for rotation.closed-raise-after); raising it
            // here would spend a decrease of DynamoDB's daily quota to lower it again.
            target = Capacity.provisioned(
                    Math.min(target.writeUnits(), table.capacity().writeUnits()),
                    Math.min(target.readUnits(), table.capacity().readUnits()));
        }
        // A closed table moves to tables.class.closed with its first lowering, in the same call; never back.
        String tableClass =
                tier != CapacityTier.CURRENT && !closedClass.equals(table.tableClass()) ? closedClass : null;
        if (tableClass == null
                && (tier == CapacityTier.CURRENT
                        ? open.satisfies(table.capacity(), target)
                        : target.equals(table.capacity()))) {
            long warm = tier == CapacityTier.CURRENT && table.capacity().onDemand() ? open.warmWrites(ref.period()) : 0;
            if (warm > table.warmWrites()) {
                return Optional.of(new Action(
                        Kind.WARM,
                        tier,
                        false,
                        "it opens on-demand and the period it is sized from peaked above the "
                                + OpenCapacity.ON_DEMAND_NEW_TABLE_WRITES + " writes/s a new on-demand table serves",
                        target,
                        null,
                        warm));
            }
            return Optional.empty();
        }
        if (tier == CapacityTier.CURRENT
                && !target.onDemand()
                && !table.capacity().onDemand()) {
            // raise only: a unit above the sized one stays (never a decrease on an open table)
            target = Capacity.provisioned(
                    Math.max(target.writeUnits(), table.capacity().writeUnits()),
                    Math.max(target.readUnits(), table.capacity().readUnits()));
        }
        boolean decrease = DecreaseQuota.isDecrease(table.capacity(), target);
        if (decrease
                && table.lastIncrease() != null
                && table.lastIncrease().plus(raisedHold).isAfter(view.wallClock())) {
            return Optional.empty(); // raised for a throttled sink not long ago: its backlog may not be written yet
        }
        return Optional.of(new Action(Kind.SET_TIER, tier, decrease, why(ref, tier, view), target, tableClass, 0));
    }

    /** A rollups table whose period is not closed, below the warm throughput its sizing period's rollups call for. */
    private Optional<Action> rollupsWarmAction(TableNaming.TableRef ref, ManagedTable table, View view) {
        if (lifecycle.admission(ref.period(), view.watermark()) == Lifecycle.Admission.CLOSED
                || !table.capacity().onDemand()) {
            return Optional.empty();
        }
        long warm = open.rollupsWarmWrites(ref.period());
        if (warm <= table.warmWrites()) {
            return Optional.empty();
        }
        return Optional.of(new Action(
                Kind.WARM,
                CapacityTier.CURRENT,
                false,
                "its period is open and the rollups of the period it is sized from peaked above the "
                        + OpenCapacity.ON_DEMAND_NEW_TABLE_WRITES + " writes/s a new on-demand table serves",
                Capacity.ON_DEMAND,
                null,
                warm));
    }

    /** Decreased before (only lowering decreases) and at most at the {@code previous} tier now. */
    private boolean lowered(ManagedTable table) {
        Capacity previous = config.effectiveCapacity(CapacityTier.PREVIOUS);
        Capacity now = table.capacity();
        return table.lastDecrease() != null
                && !now.onDemand()
                && !previous.onDemand()
                && now.writeUnits() <= previous.writeUnits()
                && now.readUnits() <= previous.readUnits();
    }

    private String why(TableNaming.TableRef ref, CapacityTier tier, View view) {
        Lifecycle.Admission admission = lifecycle.admission(ref.period(), view.watermark());
        if (admission == Lifecycle.Admission.AHEAD) {
            return "its period starts after the next one by the watermark (" + view.watermark()
                    + "); it gets the current tier when the watermark is one period before it";
        }
        return switch (tier) {
            case CURRENT -> "its period is open by the watermark (" + view.watermark() + ")";
            case PREVIOUS ->
                "its period ended and its grace (window.allowed-lateness) has passed by the watermark ("
                        + view.lowerBy() + ")";
            default -> "one more period has passed since its grace ended, by the watermark (" + view.lowerBy() + ")";
        };
    }

    /** True when table names exist for the instant (years 0001-9999 in the tables' zone). */
    public boolean namesTablesAt(long millis) {
        try {
            lifecycle.calendar().periodOf(millis);
            return true;
        } catch (IllegalArgumentException outsideLabelledYears) {
            return false;
        }
    }

    /** An event-time distance in plain words: "in 900 s" or "1,200 s ago", never negative. */
    public static String relative(long millis) {
        long seconds = Math.abs(Math.floorDiv(millis, 1000L));
        return millis >= 0 ? String.format("in %,d s", seconds) : String.format("%,d s ago", seconds);
    }
}
