package io.periodtables.bench;

import java.util.List;

/**
 * When a benchmark's warm-up is over: the JVM's JIT compiler is the slowest part of a new JVM to
 * settle (one C2 thread on two cores; the full job's SDK, Netty, Flink and Jackson code keeps it
 * busy for several runs of a million readings), and until it has, every contender runs partly in
 * slower code. A job in production runs for days, so the benchmarks measure the settled JVM:
 * warm-up rounds repeat until, in one round, no contender spent more than
 * {@value #MAX_JIT_SHARE_PERCENT}% of its CPU compiling, or {@value #MAX_ROUNDS} rounds passed.
 */
public final class WarmUp {

    static final int MAX_ROUNDS = 5;
    static final int MAX_JIT_SHARE_PERCENT = 5;

    private WarmUp() {}

    /** One warm-up round's runs, as (CPU seconds, of it JIT seconds) per contender. */
    public record Cpu(double cpuSeconds, double jitSeconds) {}

    /** True when the round that just ran ({@code round}, from 1) settles the warm-up. */
    public static boolean over(int round, List<Cpu> runs) {
        boolean settled = runs.stream().allMatch(r -> r.jitSeconds() * 100 <= r.cpuSeconds() * MAX_JIT_SHARE_PERCENT);
        return settled || round >= MAX_ROUNDS;
    }

    /** For the results' prose. */
    public static String rule() {
        return "warm-up rounds until no contender spent more than " + MAX_JIT_SHARE_PERCENT
                + " % of its CPU in the JIT compiler (at most " + MAX_ROUNDS + ")";
    }
}
