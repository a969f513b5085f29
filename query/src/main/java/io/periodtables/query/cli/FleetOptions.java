package io.periodtables.query.cli;

import io.periodtables.query.plan.FleetShape;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The fleet's shape as {@code plan} and {@code cost} take it (a picocli mixin, so both commands
 * declare the options once): devices, the time between two readings of one device, and the job's
 * checkpoint interval and parallelism, which decide how often the latest and writers tables are
 * written.
 */
final class FleetOptions {

    @Option(names = "--devices", paramLabel = "D", description = "Devices in the fleet.")
    Long devices;

    @Option(
            names = "--reading-interval",
            paramLabel = "DUR",
            converter = CliOptions.IsoDuration.class,
            description = "Time between two readings of one device (ISO-8601).")
    Duration readingInterval;

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "DUR",
            converter = CliOptions.IsoDuration.class,
            description = "The job's checkpoint interval: a checkpoint puts every changed device's newest reading"
                    + " into the latest table. Default: PT1M (MSF's CheckpointIntervalMillis).")
    Duration checkpointInterval;

    @Option(
            names = "--parallelism",
            paramLabel = "P",
            description = "The job's parallelism: sink subtasks, each with an item in the writers table. Default: 1.")
    Integer parallelism;

    /**
     * {@code devices} devices a reading {@code interval} apart, under the job's checkpoint interval
     * and parallelism given or their defaults; adds to {@code defaults} each of those two it took by
     * default.
     */
    FleetShape shape(long devices, Duration interval, List<String> defaults) {
        Duration checkpoints = checkpointInterval;
        if (checkpoints == null) {
            checkpoints = FleetShape.MSF_CHECKPOINT_INTERVAL;
            defaults.add("--checkpoint-interval PT1M (MSF's)");
        }
        int subtasks = parallelism == null ? 1 : parallelism;
        if (parallelism == null) {
            defaults.add("--parallelism 1");
        }
        return new FleetShape(devices, interval, checkpoints, subtasks);
    }
}
