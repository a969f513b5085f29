package io.periodtables.local;

import io.periodtables.core.config.PeriodTablesConfig;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * When the local run's Kinesis fleet starts: once the job's source reads every shard ({@link
 * LocalKinesis#sourceReads}), so that it has no backlog of the job's deployment to catch up on, or
 * {@link #SOURCE_START_BOUND_MS} after every task of the job runs when the source never does (a source
 * subtask without a shard never reads, and a fleet that never started would hold the run for ever).
 */
final class FleetStart {
    /** How long the fleet waits for the source to read the stream once every task runs. */
    private static final long SOURCE_START_BOUND_MS = TimeUnit.SECONDS.toMillis(30);

    private final LocalKinesis stream;
    private final PeriodTablesConfig config;
    private final long submittedMillis;
    /** Every task running since (epoch millis; 0: not yet), for the start without a read. */
    private long runningSince;

    /** @param submittedMillis when the job was submitted (epoch millis), for the summary */
    FleetStart(LocalKinesis stream, PeriodTablesConfig config, long submittedMillis) {
        this.stream = stream;
        this.config = config;
        this.submittedMillis = submittedMillis;
    }

    /**
     * Starts the fleet if it is time; called about every 100 ms until it has started.
     *
     * @param allRunning whether every task of the job runs now
     * @return the wall-clock time (epoch millis) the fleet started at, or 0 while it waits
     */
    long startIfDue(Callable<Boolean> allRunning) throws Exception {
        if (runningSince == 0 && allRunning.call()) {
            runningSince = System.currentTimeMillis();
        }
        boolean reads = stream.sourceReads();
        if (!reads && (runningSince == 0 || System.currentTimeMillis() - runningSince <= SOURCE_START_BOUND_MS)) {
            return 0;
        }
        return stream.feed(
                config,
                submittedMillis,
                reads
                        ? "once its source read every shard"
                        : "30 s after every task ran (its source had not read every shard)");
    }
}
