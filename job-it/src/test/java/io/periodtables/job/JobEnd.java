package io.periodtables.job;

import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.SeenRequest;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.checkpoint.TaskStateStats;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.util.JvmUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for a bounded job's end. A job that has not ended within the bound fails the test with
 * what it was doing: each task that has not finished and its state, the checkpoints in progress
 * and the tasks they wait for, the last DynamoDB calls and the stacks of the unfinished tasks'
 * threads; every thread of the JVM (the MiniCluster runs in it) goes to the log. Then it cancels
 * the job. A rare hang in CI leaves its cause in the report rather than a bare {@link
 * TimeoutException}, and no job holding the slots the class's next test waits for.
 */
public final class JobEnd {
    private static final Logger LOG = LoggerFactory.getLogger(JobEnd.class);
    /** DynamoDB calls shown in the failure, the last ones answered. */
    private static final int LAST_CALLS = 30;

    private static final int STACK_DEPTH = 60;

    private JobEnd() {}

    /** The job's result once it has ended within {@code bound}; an {@link AssertionError} describing it if not. */
    public static JobExecutionResult await(JobClient job, Duration bound, MiniCluster cluster) throws Exception {
        try {
            return job.getJobExecutionResult().get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException notEnded) {
            String state;
            try {
                state = describe(job, cluster);
            } catch (Exception | AssertionError unknown) {
                state = "(its state could not be read: " + unknown + ")";
            }
            StringBuilder all = new StringBuilder();
            for (ThreadInfo thread : JvmUtils.createThreadDump()) {
                all.append(stack(thread));
            }
            LOG.error("Job {} has not ended within {}:\n{}\nEvery thread:\n{}", job.getJobID(), bound, state, all);
            // the job must not hold the MiniCluster's slots, where the class's next test would wait for them
            try {
                job.cancel().get(30, TimeUnit.SECONDS);
            } catch (Exception ended) {
                // it ended meanwhile, or the cluster is going: nothing holds the slots
            }
            throw new AssertionError(
                    "job " + job.getJobID() + " has not ended within " + bound + "\n" + state, notEnded);
        }
    }

    /** A thread's name, state, the lock it waits for and its frames, as a thread dump shows them. */
    private static String stack(ThreadInfo thread) {
        StringBuilder out = new StringBuilder("\"")
                .append(thread.getThreadName())
                .append("\" ")
                .append(thread.getThreadState());
        if (thread.getLockName() != null) {
            out.append(" on ").append(thread.getLockName());
        }
        if (thread.getLockOwnerName() != null) {
            out.append(" owned by \"").append(thread.getLockOwnerName()).append('"');
        }
        out.append('\n');
        StackTraceElement[] frames = thread.getStackTrace();
        for (int i = 0; i < Math.min(frames.length, STACK_DEPTH); i++) {
            out.append("\tat ").append(frames[i]).append('\n');
        }
        if (frames.length > STACK_DEPTH) {
            out.append("\t...\n");
        }
        return out.append('\n').toString();
    }

    /** The unfinished tasks, the checkpoints in progress, the last DynamoDB calls and the tasks' stacks. */
    static String describe(JobClient job, MiniCluster cluster) throws Exception {
        AccessExecutionGraph graph = cluster.getExecutionGraph(job.getJobID()).get(30, TimeUnit.SECONDS);
        StringBuilder out = new StringBuilder("job ").append(graph.getState()).append('\n');
        List<String> unfinished = new ArrayList<>();
        for (AccessExecutionVertex task : graph.getAllExecutionVertices()) {
            if (task.getExecutionState() != ExecutionState.FINISHED) {
                unfinished.add(task.getTaskNameWithSubtaskIndex());
                out.append("  task ")
                        .append(task.getTaskNameWithSubtaskIndex())
                        .append(": ")
                        .append(task.getExecutionState())
                        .append('\n');
            }
        }
        CheckpointStatsSnapshot checkpoints = graph.getCheckpointStatsSnapshot();
        if (checkpoints != null) {
            out.append("checkpoints: ")
                    .append(checkpoints.getCounts().getNumberOfCompletedCheckpoints())
                    .append(" completed, ")
                    .append(checkpoints.getCounts().getNumberOfFailedCheckpoints())
                    .append(" failed\n");
            for (AbstractCheckpointStats checkpoint : checkpoints.getHistory().getCheckpoints()) {
                if (checkpoint.getStatus() == CheckpointStatsStatus.IN_PROGRESS) {
                    out.append("  checkpoint ")
                            .append(checkpoint.getCheckpointId())
                            .append(" in progress, waits for:");
                    for (TaskStateStats vertex : checkpoint.getAllTaskStateStats()) {
                        if (vertex.getNumberOfAcknowledgedSubtasks() < vertex.getNumberOfSubtasks()) {
                            AccessExecutionJobVertex named = graph.getJobVertex(vertex.getJobVertexId());
                            out.append(' ')
                                    .append(named == null ? vertex.getJobVertexId() : named.getName())
                                    .append(" (")
                                    .append(vertex.getNumberOfAcknowledgedSubtasks())
                                    .append('/')
                                    .append(vertex.getNumberOfSubtasks())
                                    .append(" acknowledged)");
                        }
                    }
                    out.append('\n');
                }
            }
        }
        List<SeenRequest> calls = DynamoDbFaults.requests();
        out.append("last DynamoDB calls answered (of ").append(calls.size()).append("):\n");
        calls.subList(Math.max(0, calls.size() - LAST_CALLS), calls.size())
                .forEach(call -> out.append("  ").append(call).append('\n'));
        out.append("threads of the unfinished tasks:\n");
        Collection<ThreadInfo> threads = JvmUtils.createThreadDump();
        for (ThreadInfo thread : threads) {
            if (unfinished.stream().anyMatch(task -> thread.getThreadName().startsWith(task))) {
                out.append(stack(thread));
            }
        }
        return out.toString();
    }
}
