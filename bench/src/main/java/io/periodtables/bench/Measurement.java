package io.periodtables.bench;

/**
 * One timed run of one contender: readings written, wall seconds from submission to the end of
 * the job, CPU seconds of the client JVM (and of it, JIT compilation) and of the dynalite
 * JVM during the run.
 */
public record Measurement(
        String contender,
        int run,
        long readings,
        double wallSeconds,
        double clientCpuSeconds,
        double clientJitSeconds,
        double serverCpuSeconds) {

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
                        + " (%.3f s/1k), of it JIT %.2f s; dynalite CPU %.2f s",
                contender,
                run,
                readings,
                wallSeconds,
                readingsPerSecond(),
                clientCpuSeconds,
                clientCpuPerThousand(),
                clientJitSeconds,
                serverCpuSeconds);
    }
}
