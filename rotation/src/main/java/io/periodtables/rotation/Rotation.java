package io.periodtables.rotation;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.core.period.Period;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.controlplane.TableManagerSettings;
import io.periodtables.rotation.lifecycle.Lifecycle;
import io.periodtables.rotation.lifecycle.RetentionGate;
import io.periodtables.rotation.lifecycle.TableLoad;
import io.periodtables.rotation.lifecycle.TablePlan;
import io.periodtables.rotation.operator.RotationOperatorFactory;
import io.periodtables.rotation.operator.RotationOptions;
import io.periodtables.rotation.owner.TableOwner;
import io.periodtables.rotation.reconcile.RotationEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.Preconditions;

/**
 * Wires the table rotation into a job with one call:
 *
 * <pre>{@code
 * Rotation.attach(sparseSide, config);
 * }</pre>
 *
 * <p>{@code sparseSide} is any stream of the main topology that carries its watermark: the
 * rotation acts on watermarks only (plus the timestamp of its first element before any
 * watermark), so a stream that forwards the job's watermark with few or no elements is
 * right, for example one small tick per subtask now and then, or a filter that drops every
 * reading. Every upstream subtask sends its watermark to the rotation, which takes the
 * minimum: the job's global watermark. Readings should not flow through it.
 *
 * <p>The operator runs with parallelism 1, uid {@value #UID}, never chained. It owns the tables'
 * life cycle ({@link Lifecycle}): it prebuilds the next table at {@code periodStart −
 * rotation.lead} by the watermark, dials closed tables down at {@code periodEnd +
 * window.allowed-lateness} and one period later (once the sink writers of {@link
 * Builder#waitForWriters} have written them through), deletes tables past retention, and
 * reconciles every table of the prefix with that plan at start, after a restore, whenever the
 * watermark passes a period boundary and every {@link Builder#reconcileInterval reconcile
 * interval}. Its output, {@link RotationEvent}s, is for observation; the job may leave it
 * unconnected.
 */
@PublicEvolving
public final class Rotation {
    /** The operator's uid: keep it stable, savepoints map its state by it. */
    public static final String UID = "period-rotation";

    public static final String NAME = "Period table rotation";

    private Rotation() {}

    /** Attaches the rotation with defaults: a client from {@link DynamoDbClients#of}, a pass every 30 s. */
    public static <T> SingleOutputStreamOperator<RotationEvent> attach(
            DataStream<T> sparseSide, PeriodTablesConfig config) {
        return builder(config).attach(sparseSide);
    }

    /**
     * The table owner the sinks ask about a missing table (create it, or send its readings to the
     * late or rejected table) and tell about a throttled one: give it to the sink builder's
     * {@code missingTableHandler}.
     */
    public static MissingTableHandler.Factory tableOwner() {
        return config -> new TableOwner(TableManager.create(config), config, Clock.systemUTC());
    }

    /**
     * Creates, before a job starts, the tables its first readings need, as the table owner would
     * create them when asked (the {@code current} tier): the period of {@code from} and the next one
     * if it starts by {@code to}. For a run whose source's event times are known ahead (the local
     * run's fleet), so that its first writes find their table instead of waiting for the owner
     * while the job is still warming up. The rotation takes the tables over like its own: a table
     * ahead of the watermark stays at the {@code current} tier. With {@code rollups.every}, each
     * period's rollups table too (on-demand, as the owner creates it), whose first buckets come
     * with the first readings. Completes with the period tables' names.
     */
    public static CompletableFuture<List<String>> prebuild(PeriodTablesConfig config, Instant from, Instant to) {
        Lifecycle lifecycle = Lifecycle.of(config);
        Period first = lifecycle.calendar().periodOf(from);
        Period next = lifecycle.calendar().next(first);
        List<Period> periods = next.start().isAfter(to) ? List.of(first) : List.of(first, next);
        TableManager manager = TableManager.create(config);
        boolean rollups = config.find(ConfigKeys.ROLLUPS_EVERY).isPresent();
        CompletableFuture<?>[] ensured = periods.stream()
                .flatMap(p -> rollups
                        ? Stream.of(manager.ensure(p), manager.ensureRollupsTable(p))
                        : Stream.of(manager.ensure(p)))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(ensured)
                .thenApply(done ->
                        periods.stream().map(config.naming()::periodTable).toList())
                .whenComplete((names, error) -> manager.close());
    }

    public static Builder builder(PeriodTablesConfig config) {
        return new Builder(config);
    }

    /** Options of the rotation operator; the defaults suit production. */
    @PublicEvolving
    public static final class Builder {
        private final PeriodTablesConfig config;
        private DynamoDbClients clients;
        private TableManagerSettings settings = TableManagerSettings.defaults();
        private Duration reconcileInterval = Duration.ofSeconds(30);
        private Duration finishTimeout = Duration.ofMinutes(2);
        private RetentionGate retentionGate;
        private List<String> writerGroups = List.of();
        private String writerRun = "";

        private Builder(PeriodTablesConfig config) {
            this.config = Preconditions.checkNotNull(config, "config");
            this.clients = DynamoDbClients.of(config);
        }

        /** How the operator builds its DynamoDB client (tests add fault-injecting interceptors). */
        public Builder clients(DynamoDbClients value) {
            this.clients = Preconditions.checkNotNull(value, "clients");
            return this;
        }

        public Builder tableManagerSettings(TableManagerSettings value) {
            this.settings = Preconditions.checkNotNull(value, "settings");
            return this;
        }

        /**
         * How often the rotation reconciles the tables with DynamoDB without event-time progress
         * (and tries failed operations again).
         */
        public Builder reconcileInterval(Duration value) {
            Preconditions.checkArgument(
                    value != null && !value.isNegative() && !value.isZero(),
                    "reconcileInterval must be positive, was %s",
                    value);
            this.reconcileInterval = value;
            return this;
        }

        /**
         * At the end of a bounded input, how long the writers may take to write through the last
         * watermark and running table operations (not prewarms) to finish.
         */
        public Builder finishTimeout(Duration value) {
            Preconditions.checkArgument(
                    value != null && !value.isNegative(), "finishTimeout must be >= 0, was %s", value);
            this.finishTimeout = value;
            return this;
        }

        /**
         * Retention deletes an expired table only once {@code value} says its period is archived
         * ({@link TablePlan#archiveOf which period}); without a gate it deletes at expiry.
         */
        public Builder retentionGate(RetentionGate value) {
            this.retentionGate = Preconditions.checkNotNull(value, "retentionGate");
            return this;
        }

        /**
         * A closed table is lowered only once every writer of these sink groups (each sink's
         * {@code writerGroup}) has written it through, as they report in the writers table; without
         * groups, tables are lowered by the watermark alone (nothing may be left unwritten then).
         */
        public Builder waitForWriters(List<String> groups) {
            this.writerGroups = List.copyOf(Preconditions.checkNotNull(groups, "groups"));
            return this;
        }

        /** The submission the writers report under (their sinks' {@code writerRun}). */
        public Builder writerRun(String submission) {
            this.writerRun = Preconditions.checkNotNull(submission, "submission");
            return this;
        }

        public <T> SingleOutputStreamOperator<RotationEvent> attach(DataStream<T> sparseSide) {
            return sparseSide
                    .transform(NAME, TypeInformation.of(RotationEvent.class), new RotationOperatorFactory<T>(options()))
                    .setParallelism(1)
                    .uid(UID)
                    .name(NAME);
        }

        /**
         * As {@link #attach(DataStream)}, with the write load the sink is given per table and second
         * of event time: a period table opens at a capacity sized from the peak of an earlier period
         * ({@code OpenCapacity}; {@code tables.capacity.target-utilization}, within {@code
         * tables.capacity.current.min}..{@code .max}); without it, at the {@code current} tier.
         */
        public <T> SingleOutputStreamOperator<RotationEvent> attach(
                DataStream<T> sparseSide, DataStream<TableLoad> load) {
            return sparseSide
                    .connect(load)
                    .transform(NAME, TypeInformation.of(RotationEvent.class), new RotationOperatorFactory<T>(options()))
                    .setParallelism(1)
                    .uid(UID)
                    .name(NAME);
        }

        private RotationOptions options() {
            return new RotationOptions(
                    config,
                    clients,
                    settings,
                    reconcileInterval,
                    finishTimeout,
                    retentionGate,
                    writerGroups,
                    writerRun);
        }
    }
}
