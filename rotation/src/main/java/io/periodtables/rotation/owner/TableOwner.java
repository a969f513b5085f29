package io.periodtables.rotation.owner;

import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.RejectReason;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.Lifecycle;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table owner's answers to the sink, in the sink's task: the rotation's {@link Lifecycle}
 * decides. A missing period table is created only while its period is open; a closed period's
 * readings go to the late table, and a period beyond the next one gets no table (its readings are
 * rejected as {@code ahead-of-watermark}), so no input can make the job create more tables than
 * its configuration plans. Readings the period windows emitted are on time, readings routed back
 * to their period table by {@code late.policy=period-table} are late; for entries restored from a
 * checkpoint the period is judged by event time: the tables the rotation keeps open (the newest
 * one at the {@code current} tier) and the sink's own event time. An open period's missing table
 * is left to the rotation for a few seconds (it sizes it from the load) before the owner creates
 * it at the {@code current} tier. A table that throttles the sink for long is raised to the
 * {@code current} tier ({@link #throttled}).
 * Reached through {@link io.periodtables.rotation.Rotation#tableOwner() Rotation#tableOwner()}.
 */
public final class TableOwner implements MissingTableHandler {
    private static final Logger LOG = LoggerFactory.getLogger(TableOwner.class);
    /**
     * One raise request per table at most this often (throttling repeats on every batch), or every
     * {@code rotation.lead} when that is shorter: the rotation may lower a raised table again after
     * that long, and a sink still throttled on it then must be able to ask again at once.
     */
    private static final Duration RAISE_INTERVAL = Duration.ofSeconds(10);
    /** A pause in throttling this long ends a spell. */
    private static final Duration SPELL_GAP = Duration.ofSeconds(15);
    /** How long the sink's question about an open period's missing table waits for the rotation to create it. */
    private static final Duration ROTATION_CREATES = Duration.ofSeconds(5);
    /**
     * How long a rollup of a closed period without a table waits for the period sink to create it
     * for the readings the rollup counts, before it is rejected as {@code period-closed}.
     */
    static final Duration PERIOD_SINK_CREATES = Duration.ofSeconds(15);

    private static final Duration POLL = Duration.ofMillis(250);
    /** How long the owner's view of its open tables is reused for the sink's questions. */
    private static final Duration REREAD = Duration.ofSeconds(5);

    private final TableManager manager;
    private final Lifecycle lifecycle;
    private final TableNaming naming;
    private final Clock wallClock;
    private final Duration raiseInterval;
    /** How long the sink must have been throttled on a closed table before it is raised. */
    private final Duration sustained;
    /** Whether each period also has a rollups table ({@code rollups.every}). */
    private final boolean rollups;

    private final Map<String, Instant> lastRaise = new ConcurrentHashMap<>();
    /** Per closed table, the first and the last throttling of the current spell. */
    private final Map<String, Instant[]> throttling = new ConcurrentHashMap<>();

    private final Set<String> raisedOnce = ConcurrentHashMap.newKeySet();
    private final Duration periodSinkCreates;
    private volatile Opened opened;

    /** What {@link #openedBy} found, and when. */
    private record Opened(Instant readAt, Optional<Instant> watermarkAtLeast) {}

    public TableOwner(TableManager manager, PeriodTablesConfig config, Clock wallClock) {
        this(manager, config, wallClock, PERIOD_SINK_CREATES);
    }

    TableOwner(TableManager manager, PeriodTablesConfig config, Clock wallClock, Duration periodSinkCreates) {
        this.periodSinkCreates = periodSinkCreates;
        this.manager = manager;
        this.lifecycle = Lifecycle.of(config);
        this.naming = config.naming();
        this.wallClock = wallClock;
        Duration lead = config.get(ConfigKeys.ROTATION_LEAD);
        this.raiseInterval = lead.compareTo(RAISE_INTERVAL) < 0 ? lead : RAISE_INTERVAL;
        this.sustained = config.get(ConfigKeys.ROTATION_CLOSED_RAISE_AFTER);
        this.rollups = config.find(ConfigKeys.ROLLUPS_EVERY).isPresent();
    }

    @Override
    public CompletableFuture<Verdict> ensureTable(String tableName, Arrival arrival, long eventTime) {
        Optional<TableNaming.TableRef> ref = naming.parse(tableName);
        if (ref.isPresent() && ref.get().kind() == TableNaming.TableRef.Kind.ROLLUPS) {
            return rollupsTable(ref.get().period(), arrival, eventTime);
        }
        if (ref.isEmpty() || ref.get().kind() != TableNaming.TableRef.Kind.PERIOD) {
            // late and rejected tables: one per month and one, never input-driven beyond that
            return manager.ensureTable(tableName).thenApply(table -> Verdict.created());
        }
        Period period = ref.get().period();
        if (arrival == Arrival.LATE) {
            return CompletableFuture.completedFuture(Verdict.late("its readings arrived after the period "
                    + period.label() + " closed (end plus window.allowed-lateness)"));
        }
        // Entries restored before any input: the wall clock is the only time there is.
        Instant sinkTime = eventTime == Long.MIN_VALUE ? wallClock.instant() : Instant.ofEpochMilli(eventTime);
        return openedBy().thenCompose(opened -> {
            // On-time readings: their period was open when the windows emitted them. Otherwise
            // closed only by the oldest bound of event time; ahead only by the newest one.
            Instant oldest = opened.orElse(sinkTime);
            Instant newest = opened.filter(o -> o.isAfter(sinkTime)).orElse(sinkTime);
            if (arrival != Arrival.ON_TIME && lifecycle.admission(period, oldest) == Lifecycle.Admission.CLOSED) {
                return CompletableFuture.completedFuture(Verdict.late("its period " + period.label()
                        + " has closed (end plus window.allowed-lateness) by event time " + oldest));
            }
            // Ahead of the wall clock too, not only of event time: in a backfill one shard may
            // run days ahead of the slowest, whose shard holds the watermark back; its readings
            // are real and need their tables. The parser already refuses readings more than
            // input.max-future ahead of the wall clock, so input cannot drive the count beyond.
            Instant horizon = newest.isAfter(wallClock.instant()) ? newest : wallClock.instant();
            if (lifecycle.admission(period, horizon) == Lifecycle.Admission.AHEAD) {
                return CompletableFuture.completedFuture(Verdict.rejected(
                        RejectReason.AHEAD_OF_WATERMARK,
                        "its period " + period.label() + " starts after the next one by event time " + horizon
                                + "; no table is created that far ahead"));
            }
            if (lifecycle.admission(period, oldest) == Lifecycle.Admission.OPEN) {
                // The rotation creates the open periods' tables, sized from the load: wait for it a little.
                return createdWithin(tableName, System.nanoTime() + ROTATION_CREATES.toNanos())
                        .thenCompose(found -> {
                            if (!found) {
                                LOG.info(
                                        "The rotation had not created table {} within {} s: created at the current"
                                                + " tier",
                                        tableName,
                                        ROTATION_CREATES.getSeconds());
                            }
                            return ensure(period);
                        })
                        .thenApply(table -> Verdict.created());
            }
            return ensure(period).thenApply(table -> Verdict.created());
        });
    }

    /**
     * A period's rollups table is created where its period table is, never on a rollup's word
     * alone: with the period table there, or by the period table's own rule (an open period).
     * The rollups of a period without tables (deleted by retention, restored from an old
     * savepoint) go to the rejected table as {@code period-closed}. A closed period's table may
     * still be on its way: the readings a rollup counts went to the period sink on time, and that
     * sink creates their table when it first writes them, which may come after the rollup (the
     * two sinks flush on their own). So the rollup waits {@link #PERIOD_SINK_CREATES} for it first.
     */
    private CompletableFuture<Verdict> rollupsTable(Period period, Arrival arrival, long eventTime) {
        String periodTable = naming.periodTable(period);
        return manager.describe(periodTable).thenCompose(table -> {
            if (table.isPresent()) {
                return manager.ensureRollupsTable(period).thenApply(created -> Verdict.created());
            }
            return ensureTable(periodTable, arrival, eventTime).thenCompose(verdict -> {
                if (verdict.kind() != Verdict.Kind.LATE) {
                    return CompletableFuture.completedFuture(verdict);
                }
                return createdWithin(periodTable, System.nanoTime() + periodSinkCreates.toNanos())
                        .thenCompose(found -> found
                                ? manager.ensureRollupsTable(period).thenApply(created -> Verdict.created())
                                : CompletableFuture.completedFuture(Verdict.rejected(
                                        RejectReason.PERIOD_CLOSED,
                                        "its period " + period.label() + " has no table (" + verdict.message()
                                                + ", and none was created within " + periodSinkCreates.toSeconds()
                                                + " s); a rollups table is created only with its period table")));
            });
        });
    }

    /**
     * Ensures the period's table and, with {@code rollups.every}, its rollups table: a period
     * table the owner creates has its rollups table as one the rotation creates has.
     */
    private CompletableFuture<?> ensure(Period period) {
        CompletableFuture<?> table = manager.ensure(period);
        return rollups ? table.thenCompose(created -> manager.ensureRollupsTable(period)) : table;
    }

    /** Completes with true once {@code tableName} exists, false at {@code deadline} (System.nanoTime). */
    private CompletableFuture<Boolean> createdWithin(String tableName, long deadline) {
        return manager.describe(tableName).thenCompose(table -> {
            if (table.isPresent()) {
                return CompletableFuture.completedFuture(true);
            }
            if (System.nanoTime() >= deadline) {
                return CompletableFuture.completedFuture(false);
            }
            return CompletableFuture.supplyAsync(
                            () -> null, CompletableFuture.delayedExecutor(POLL.toMillis(), TimeUnit.MILLISECONDS))
                    .thenCompose(waited -> createdWithin(tableName, deadline));
        });
    }

    /**
     * A lower bound of the job's watermark from the tables the rotation keeps open: the newest
     * period table at the {@code current} tier exists because its period was open, so the
     * watermark had reached the period before it. Empty before there is one. Read at most every
     * few seconds: the sink asks only when a table is missing.
     */
    private CompletableFuture<Optional<Instant>> openedBy() {
        Opened last = opened;
        Instant now = wallClock.instant();
        if (last != null && last.readAt().plus(REREAD).isAfter(now)) {
            return CompletableFuture.completedFuture(last.watermarkAtLeast());
        }
        return manager.list()
                .thenCompose(names -> newestOpen(
                        names.stream()
                                .map(naming::parse)
                                .flatMap(Optional::stream)
                                .filter(r -> r.kind() == TableNaming.TableRef.Kind.PERIOD)
                                .map(TableNaming.TableRef::period)
                                .sorted((a, b) -> b.start().compareTo(a.start()))
                                .limit(3)
                                .toList(),
                        0))
                .thenApply(period -> {
                    Optional<Instant> atLeast =
                            period.map(p -> lifecycle.calendar().previous(p).start());
                    opened = new Opened(now, atLeast);
                    return atLeast;
                });
    }

    private CompletableFuture<Optional<Period>> newestOpen(List<Period> newestFirst, int i) {
        if (i == newestFirst.size()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        Period period = newestFirst.get(i);
        return manager.describe(naming.periodTable(period))
                .thenCompose(table ->
                        table.isPresent() && manager.tierOf(table.get()).orElse(null) == CapacityTier.CURRENT
                                ? CompletableFuture.completedFuture(Optional.of(period))
                                : newestOpen(newestFirst, i + 1));
    }

    /**
     * A table that throttles the sink for {@code rotation.closed-raise-after} on end is raised to
     * the {@code current} tier when it has fewer write units (DynamoDB does not limit increases):
     * <ul>
     *   <li>an open table sized from the fleet's rate ({@code OpenCapacity}) that a backfill or a
     *       replay writes faster than the fleet produces: it keeps the raise while open, and is
     *       lowered when it closes, as any table (logged once per table, at INFO);
     *   <li>a closed table, as a fallback: the rotation lowers it only once the writers have
     *       written its period through, so what still reaches it is late readings ({@code
     *       late.policy=period-table}) or a replay after a restore, written at its closed
     *       capacity with backoff; the rotation lowers it again {@code rotation.lead} later
     *       (logged once per table, counted by the sink as {@code closedTableRaises}).
     * </ul>
     * Only a table the sink writes is raised this way: a replay raises no table it does not write.
     */
    @Override
    public CompletableFuture<Boolean> throttled(String tableName) {
        CompletableFuture<Boolean> no = CompletableFuture.completedFuture(false);
        if (naming.parse(tableName)
                .map(ref -> ref.kind() != TableNaming.TableRef.Kind.PERIOD)
                .orElse(true)) {
            return no; // late and rejected tables are on-demand
        }
        Instant now = wallClock.instant();
        Instant[] spell = throttling.compute(
                tableName,
                (table, last) -> last == null || last[1].plus(SPELL_GAP).isBefore(now)
                        ? new Instant[] {now, now}
                        : new Instant[] {last[0], now});
        if (Duration.between(spell[0], now).compareTo(sustained) < 0) {
            return no;
        }
        Instant last = lastRaise.get(tableName);
        if (last != null && last.plus(raiseInterval).isAfter(now)) {
            return no;
        }
        lastRaise.put(tableName, now);
        return manager.raiseToOpenTier(tableName).handle((raised, error) -> {
            if (error != null) {
                LOG.warn("Could not raise throttled table {}: {}", tableName, error.toString());
                return false;
            }
            if (raised.isEmpty()) {
                return false;
            }
            boolean wasOpen = manager.tierOf(raised.get()).orElse(null) == CapacityTier.CURRENT;
            if (wasOpen && raisedOnce.add(tableName)) {
                LOG.info(
                        "Raised open table {} to the current tier ({} -> tables.capacity.current): the sink has"
                                + " been throttled writing to it for {} (rotation.closed-raise-after): it was sized"
                                + " from the fleet's rate, and a backfill or a replay writes it faster; it is"
                                + " lowered when it closes",
                        tableName,
                        raised.get().capacity(),
                        sustained);
            } else if (!wasOpen && raisedOnce.add(tableName)) {
                LOG.warn(
                        "Raised closed table {} back to the current tier as a fallback: the sink has been throttled"
                                + " writing to it for {} (rotation.closed-raise-after: late readings with"
                                + " late.policy=period-table, or a replay after a restore); the rotation lowers it"
                                + " again, which spends a decrease",
                        tableName,
                        sustained);
            }
            return !wasOpen;
        });
    }

    @Override
    public void close() {
        manager.close();
    }
}
