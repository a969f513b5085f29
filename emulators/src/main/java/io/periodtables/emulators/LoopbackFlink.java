package io.periodtables.emulators;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * The configuration of a local Flink MiniCluster whose REST endpoint, JobManager and
 * TaskManager listen on 127.0.0.1 only (Flink binds every interface by default). Used by the
 * local run, the benchmarks and every MiniCluster test.
 */
public final class LoopbackFlink {

    private LoopbackFlink() {}

    /**
     * @param restPorts the Web UI/REST port or range, e.g. {@code 8081-8099}, or {@code 0} for any free port
     */
    public static Configuration configuration(String restPorts) {
        Configuration flink = new Configuration();
        flink.set(RestOptions.BIND_ADDRESS, DynamoDbLocal.HOST);
        flink.set(RestOptions.ADDRESS, DynamoDbLocal.HOST);
        flink.set(RestOptions.BIND_PORT, restPorts);
        flink.set(JobManagerOptions.ADDRESS, DynamoDbLocal.HOST);
        flink.set(JobManagerOptions.BIND_HOST, DynamoDbLocal.HOST);
        flink.set(TaskManagerOptions.HOST, DynamoDbLocal.HOST);
        flink.set(TaskManagerOptions.BIND_HOST, DynamoDbLocal.HOST);
        return flink;
    }
}
