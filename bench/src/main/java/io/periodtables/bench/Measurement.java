package io.periodtables.bench;

/**
 * One timed run of one contender: readings written, wall seconds from submission to the end of
 * the job, CPU seconds of the client JVM (and of it, JIT compilation) and of the dynalite
 * JVM during the run; and its {@link WriteProgress.Phases} (the first write, the steady rate between
 * 10 % and 90 % of the readings written, the time after the last one), unknown for the raw loop.
 */
public record Measurement(
        String contender,
        int run,
        long readings,
        double wallSeconds,
        double clientCpuSeconds,
        double clientJitSeconds,
        double serverCpuSeconds,
        WriteProgress.Phases phases) {

    public double readingsPerSecond() {
        return readings / wallSeconds;
    }

    /** Client CPU seconds per 1,000 readings. */
    public double clientCpuPerThousand() {
        return clientCpuSeconds * 1000.0 / readings;
    }

    /** Client CPU seconds per 1,000 readings without JIT compilation: what a long-running job pays. */
    public double clientCpuPerThousandCompiled() {
        return (clientCpuSeconds - clientJitSeconds) * 1000.0 / readings;
    }

    public double serverCpuPerThousand() {
        return serverCpuSeconds * 1000.0 / readings;
    }

    @Override
    public String toString() {
        return String.format(
                java.util.Locale.ROOT,
                "%-10s run %d: %,d readings in %.2f s = %,.0f/s; client CPU %.2f s"
                        + " (%.3f s/1k), of it JIT %.2f s; dynalite CPU %.2f s; first write at %.2f s, steady"
                        + " %,.0f/s (10-90 %%), %.2f s after the last write",
                contender,
                run,
                readings,
                wallSeconds,
                readingsPerSecond(),
                clientCpuSeconds,
                clientCpuPerThousand(),
                clientJitSeconds,
                serverCpuSeconds,
                phases.firstWrite(),
                phases.steadyReadingsPerSecond(),
                phases.afterLastWrite());
    }
}
