package io.periodtables.query.plan;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;

/**
 * The fleet the job serves, as the plan prices the tables it writes besides the period tables:
 * how many devices, how often each sends a reading, how often the job checkpoints (a checkpoint
 * puts every device's newest reading into the latest table) and how many sink subtasks write
 * (each keeps an item in the writers table).
 *
 * @param devices devices sending readings
 * @param readingInterval time between two readings of one device
 * @param checkpointInterval the job's checkpoint interval (MSF's {@code CheckpointIntervalMillis})
 * @param parallelism the job's parallelism: sink subtasks per sink
 */
@PublicEvolving
public record FleetShape(long devices, Duration readingInterval, Duration checkpointInterval, int parallelism) {

    /** MSF's default checkpoint interval ({@code CheckpointIntervalMillis} 60,000). */
    public static final Duration MSF_CHECKPOINT_INTERVAL = Duration.ofMinutes(1);

    public FleetShape {
        Preconditions.checkArgument(devices >= 1, "--devices must be at least 1, was %s", devices);
        Preconditions.checkArgument(
                readingInterval.toMillis() > 0, "--reading-interval must be positive, was %s", readingInterval);
        Preconditions.checkArgument(
                checkpointInterval.toMillis() > 0,
                "--checkpoint-interval must be positive, was %s",
                checkpointInterval);
        Preconditions.checkArgument(parallelism >= 1, "--parallelism must be at least 1, was %s", parallelism);
    }

    /** The fleet's readings per second. */
    public double readingsPerSecond() {
        return devices / seconds(readingInterval);
    }

    static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
