package io.periodtables.core.config;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * The configuration of a Flink MiniCluster whose sockets all listen on 127.0.0.1: the REST
 * endpoint and Web UI, the JobManager's RPC and blob server (both follow
 * {@code jobmanager.bind-host}), the TaskManager's RPC and data exchange. Flink binds every
 * interface by default. Used by the job's {@code main} on a plain JVM, the local run, the
 * benchmarks and every MiniCluster test.
 */
@Internal
public final class LoopbackFlink {
    /** The only interface a local Flink listens on. */
    public static final String HOST = "127.0.0.1";

    private LoopbackFlink() {}

    /**
     * @param restPorts the Web UI/REST port or range, e.g. {@code 8081-8099}, or {@code 0} for any free port
     */
    public static Configuration configuration(String restPorts) {
        Configuration flink = new Configuration();
        flink.set(RestOptions.BIND_ADDRESS, HOST);
        flink.set(RestOptions.ADDRESS, HOST);
        flink.set(RestOptions.BIND_PORT, restPorts);
        flink.set(JobManagerOptions.ADDRESS, HOST);
        flink.set(JobManagerOptions.BIND_HOST, HOST);
        flink.set(TaskManagerOptions.HOST, HOST);
        flink.set(TaskManagerOptions.BIND_HOST, HOST);
        return flink;
    }
}
