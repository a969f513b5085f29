package io.periodtables.emulators;

import org.apache.flink.configuration.Configuration;

/**
 * The loopback-only MiniCluster configuration for the test beds and the benchmarks; the one
 * definition is {@link io.periodtables.core.config.LoopbackFlink}, which the job's {@code main} uses too.
 */
public final class LoopbackFlink {

    private LoopbackFlink() {}

    /** See {@link io.periodtables.core.config.LoopbackFlink#configuration(String)}. */
    public static Configuration configuration(String restPorts) {
        return io.periodtables.core.config.LoopbackFlink.configuration(restPorts);
    }
}
