package io.periodtables.job;

import org.apache.flink.annotation.Internal;

/**
 * The name savepoints taken before the rollups moved to {@code io.periodtables.job.rollups} hold
 * for their bucket state's serializer snapshot ({@code io.periodtables.job.RollupAggregate$Snapshot}):
 * Flink loads a snapshot's class by the name the savepoint stores, so this name keeps resolving.
 * The state itself is {@link io.periodtables.job.rollups.RollupAggregate}; a savepoint taken after
 * the move names its snapshot.
 */
@Internal
final class RollupAggregate {
    private RollupAggregate() {}

    /**
     * The rollups' bucket state snapshot under its name before the move: it restores the same
     * serializer, so the state is compatible as is and the next savepoint stores the new name.
     */
    public static final class Snapshot extends io.periodtables.job.rollups.RollupAggregate.Snapshot {}
}
