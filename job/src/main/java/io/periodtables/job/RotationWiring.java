package io.periodtables.job;

import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.rotation.Lifecycle;
import io.periodtables.rotation.Rotation;
import io.periodtables.rotation.TableLoad;
import io.periodtables.rotation.TableManager;
import io.periodtables.sink.MissingTableHandler;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Joins the sink and the rotation, which do not know each other: the sink asks, the rotation's
 * {@link Lifecycle} decides. A missing period table is created only while its period is open; a
 * closed period's readings go to the late table, and a period beyond the next one gets no table
 * (its readings are rejected as {@code ahead-of-watermark}), so no input can make the job create more tables
 * than its configuration plans. Readings the period windows emitted are on time, readings routed
 * back to their period table by {@code late.policy=period-table} are late; for entries restored
 * from a checkpoint the period is judged by event time: the tables the rotation keeps open (the
 * newest one at the {@code current} tier) and the sink's own event time. A table that throttles the sink and is
 * below the {@code current} tier is raised back; the rotation lowers it again later. The rotation
 * operator is fed by a sparse side stream of the readings.
 */
@Internal
public final class RotationWiring {
    /**
     * One raise request per table at most this often (throttling repeats on every batch), or every
     * {@code rotation.lead} when that is shorter: the rotation may lower a raised table again after
     * that long, and a sink still throttled on it then must be able to ask again at once.
     */
    private static final Duration RAISE_INTERVAL = Duration.ofSeconds(10);
    /** How long the owner's view of its open tables is reused for the sink's questions. */
    private static final Duration REREAD = Duration.ofSeconds(5);

    private RotationWiring() {}

    /** The sink's question to the table owner: the rotation's life cycle and table manager. */
    public static MissingTableHandler.Factory missingTableHandler(PeriodTablesConfig config) {
        return cfg -> new TableOwner(TableManager.create(cfg), cfg, Clock.systemUTC());
    }

    /**
     * Creates, before a job starts, the tables its first readings need, as the table owner would
     * create them when asked (the {@code current} tier): the period of {@code from} and the next one
     * if it starts by {@code to}. For a run whose source's event times are known ahead (the local
     * run's fleet), so that its first writes find their table instead of waiting for the owner
     * while the job is still warming up. The rotation takes the tables over like its own: a table
     * ahead of the watermark stays at the {@code current} tier. Completes with their names.
     */
    public static CompletableFuture<List<String>> prebuild(PeriodTablesConfig config, Instant from, Instant to) {
        Lifecycle lifecycle = Lifecycle.of(config);
        Period first = lifecycle.calendar().periodOf(from);
        Period next = lifecycle.calendar().next(first);
        List<Period> periods = next.start().isAfter(to) ? List.of(first) : List.of(first, next);
        TableManager manager = TableManager.create(config);
        CompletableFuture<?>[] ensured = periods.stream().map(manager::ensure).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(ensured)
                .thenApply(done -> periods.stream().map(config.naming()::periodTable).toList())
                .whenComplete((names, error) -> manager.close());
    }

    /**
     * Adds the rotation operator, fed by a sparse side stream of {@code readings} and the sink's
     * write {@code load} per table and second (the next table is sized from its peak); with
     * {@code archive.path}, retention deletes a table only once its period is archived.
     */
    static void attach(DataStream<Reading> readings, DataStream<TableLoad> load, PeriodTablesConfig config) {
        DataStream<Long> ticks = readings
                .process(new RotationTicks(), Types.LONG)
                // the readings' parallelism keeps it in their task: a stateless filter, no hop
                .setParallelism(readings.getParallelism())
                .uid("rotation-ticks").name("Rotation ticks");
        Rotation.Builder rotation = Rotation.builder(config);
        config.find(ConfigKeys.ARCHIVE_PATH).ifPresent(path -> rotation.retentionGate(new ArchivedPeriods(path)));
        rotation.attach(ticks, load);
    }

    /** The rotation's answers to the sink, in the sink's task. */
    static final class TableOwner implements MissingTableHandler {
        private static final Logger LOG = LoggerFactory.getLogger(TableOwner.class);

        private final TableManager manager;
        private final Lifecycle lifecycle;
        private final TableNaming naming;
        private final Clock wallClock;
        private final Duration raiseInterval;
        private final Map<String, Instant> lastRaise = new ConcurrentHashMap<>();
        private volatile Opened opened;

        /** What {@link #openedBy} found, and when. */
        private record Opened(Instant readAt, Optional<Instant> watermarkAtLeast) {}

        TableOwner(TableManager manager, PeriodTablesConfig config, Clock wallClock) {
            this.manager = manager;
            this.lifecycle = Lifecycle.of(config);
            this.naming = config.naming();
            this.wallClock = wallClock;
            Duration lead = config.get(ConfigKeys.ROTATION_LEAD);
            this.raiseInterval = lead.compareTo(RAISE_INTERVAL) < 0 ? lead : RAISE_INTERVAL;
        }

        @Override
        public CompletableFuture<Verdict> ensureTable(String tableName, Arrival arrival, long eventTime) {
            Optional<TableNaming.TableRef> ref = naming.parse(tableName);
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
                    return CompletableFuture.completedFuture(Verdict.rejected(RejectReason.AHEAD_OF_WATERMARK, "its period " + period.label()
                            + " starts after the next one by event time " + horizon + "; no table is created that far ahead"));
                }
                return manager.ensure(period).thenApply(table -> Verdict.created());
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
            return manager.list().thenCompose(names -> newestOpen(names.stream()
                    .map(naming::parse).flatMap(Optional::stream)
                    .filter(r -> r.kind() == TableNaming.TableRef.Kind.PERIOD)
                    .map(TableNaming.TableRef::period)
                    .sorted((a, b) -> b.start().compareTo(a.start()))
                    .limit(3).toList(), 0))
                    .thenApply(period -> {
                        Optional<Instant> atLeast = period.map(p -> lifecycle.calendar().previous(p).start());
                        opened = new Opened(now, atLeast);
                        return atLeast;
                    });
        }

        private CompletableFuture<Optional<Period>> newestOpen(List<Period> newestFirst, int i) {
            if (i == newestFirst.size()) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            Period period = newestFirst.get(i);
            return manager.describe(naming.periodTable(period)).thenCompose(table ->
                    table.isPresent() && manager.tierOf(table.get()).orElse(null) == CapacityTier.CURRENT
                            ? CompletableFuture.completedFuture(Optional.of(period))
                            : newestOpen(newestFirst, i + 1));
        }

        @Override
        public void throttled(String tableName) {
            if (naming.parse(tableName).map(ref -> ref.kind() != TableNaming.TableRef.Kind.PERIOD).orElse(true)) {
                return; // late and rejected tables are on-demand
            }
            Instant now = wallClock.instant();
            Instant last = lastRaise.get(tableName);
            if (last != null && last.plus(raiseInterval).isAfter(now)) {
                return;
            }
            lastRaise.put(tableName, now);
            manager.raiseToOpenTier(tableName).whenComplete((raised, error) -> {
                if (error != null) {
                    LOG.warn("Could not raise throttled table {}: {}", tableName, error.toString());
                }
            });
        }

        @Override
        public void close() {
            manager.close();
        }
    }
}
