package io.periodtables.bench.e2e;

import java.util.List;
import jdk.jfr.consumer.RecordedFrame;

/**
 * What a CPU sample of an end-to-end run was spent on: the innermost frame of the stack (from the
 * top) that belongs to a part of the pipeline decides. Library frames (the JDK, Jackson, the AWS
 * SDK, Netty) and the shared value classes ({@code core}, {@code model}) count for the part that
 * called them, so a {@code HashMap} lookup in the window state counts for the windows and the
 * JSON reading of an item for the sink. AWS SDK work below a sink's frame is the sink's request
 * encoding; SDK and Netty work with no part on the stack runs on the SDK's own threads (event
 * loops, response handling) for every request of the run.
 */
enum CpuPurpose {
    PARSE("input: parse the JSON records (the job's parser)"),
    SOURCE("source, event time, watermarks"),
    CHAINED("job operators chained to the source (split, redeploy check, checkpointed watermark)"),
    LOAD("write-load counting and rotation ticks (chained to the source)"),
    SHUFFLE("between tasks: serialization, network buffers, key groups (keyBy)"),
    WINDOWS("period windows: window operator, heap state, trigger, timers"),
    SINK_ITEMS("sink: items, sizes, buffering, batching"),
    SINK_SDK("sink: AWS SDK request building and encoding (writer's thread)"),
    SDK_THREADS("AWS SDK HTTP client threads: Netty I/O, response parsing (every request)"),
    LATEST("latest table writer"),
    ROTATION("rotation: table owner, load, admission"),
    CHECKPOINTS("checkpoints (snapshots, barriers)"),
    FLINK_TASKS("Flink task runtime: mailbox, chaining, records, metrics, timers"),
    FLINK_CLUSTER("Flink cluster: RPC, job manager, job start and end"),
    BENCH("benchmark harness (progress sampling)"),
    OTHER("other Java");

    private final String label;

    CpuPurpose(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    /** The purpose of a sample whose frames run from the top of the stack ({@code frames.get(0)}) down. */
    static CpuPurpose of(List<RecordedFrame> frames) {
        boolean sdk = false;
        for (RecordedFrame frame : frames) {
            if (!frame.isJavaFrame()) {
                continue;
            }
            String type = frame.getMethod().getType().getName();
            if (type.startsWith("software.amazon.awssdk.") || type.startsWith("io.netty.")) {
                sdk = true;
                continue;
            }
            CpuPurpose purpose = ofType(type);
            if (purpose == SINK_ITEMS && sdk) {
                return SINK_SDK;
            }
            if (purpose != null) {
                return purpose;
            }
        }
        return sdk ? SDK_THREADS : OTHER;
    }

    /** The part a class belongs to, or null for a library or shared class its caller decides for. */
    static CpuPurpose ofType(String type) {
        if (type.startsWith("java.")
                || type.startsWith("jdk.")
                || type.startsWith("sun.")
                || type.startsWith("com.fasterxml.")
                || type.startsWith("io.periodtables.core.")
                || (type.startsWith("io.periodtables.model.") && !type.endsWith("Serializer"))
                || type.startsWith("org.apache.flink.util.")
                || type.startsWith("org.apache.flink.metrics.")
                || type.startsWith("org.slf4j.")
                || type.startsWith("org.apache.logging.")) {
            return null;
        }
        if (type.startsWith("org.apache.flink.runtime.checkpoint.")
                || type.startsWith("org.apache.flink.streaming.runtime.tasks.SubtaskCheckpointCoordinator")
                || type.startsWith("org.apache.flink.streaming.runtime.io.checkpointing.")) {
            return CHECKPOINTS;
        }
        if (type.startsWith("org.apache.flink.runtime.state.KeyGroupRangeAssignment")) {
            return SHUFFLE;
        }
        if (type.startsWith("io.periodtables.job.input.")) {
            return PARSE;
        }
        if (type.startsWith("io.periodtables.job.time.SplitEventTime")
                || type.startsWith("io.periodtables.job.time.ReadingWatermarks")
                || type.startsWith("io.periodtables.job.time.ShardLateness")
                || type.startsWith("io.periodtables.bench.PrebuiltReadings")
                || type.startsWith("org.apache.flink.connector.datagen.")
                || type.startsWith("org.apache.flink.api.connector.source.")
                || type.startsWith("org.apache.flink.connector.base.source.")
                || type.startsWith("org.apache.flink.streaming.api.operators.source.")
                || type.startsWith("org.apache.flink.streaming.api.operators.SourceOperator")
                || type.startsWith("org.apache.flink.api.common.eventtime.")) {
            return SOURCE;
        }
        if (type.startsWith("io.periodtables.job.rotation.") || type.startsWith("io.periodtables.rotation.")) {
            return type.contains("LoadCounter") || type.contains("RotationTicks") ? LOAD : ROTATION;
        }
        if (type.startsWith("io.periodtables.job.time.SmallBatchTrigger")
                || type.startsWith("io.periodtables.job.time.PeriodWindows")
                || type.startsWith("io.periodtables.job.PeriodTablesTopology$ToPeriodTable")
                || type.startsWith("org.apache.flink.streaming.runtime.operators.windowing.")
                || type.startsWith("org.apache.flink.streaming.api.windowing.")
                || type.startsWith("org.apache.flink.runtime.state.")
                || type.startsWith("org.apache.flink.streaming.api.operators.InternalTimer")
                || type.startsWith("org.apache.flink.streaming.api.operators.HeapPriorityQueue")
                || type.startsWith("org.apache.flink.streaming.api.operators.TimerHeap")) {
            return WINDOWS;
        }
        if (type.startsWith("io.periodtables.job.")) {
            return CHAINED;
        }
        if (type.startsWith("io.periodtables.sink.latest.")) {
            return LATEST;
        }
        if (type.startsWith("io.periodtables.sink.")
                || type.startsWith("io.periodtables.bench.StockItemConverter")
                || type.startsWith("org.apache.flink.connector.dynamodb.")
                || type.startsWith("org.apache.flink.connector.base.sink.")) {
            return SINK_ITEMS;
        }
        if (type.startsWith("io.periodtables.model.")
                || type.startsWith("org.apache.flink.runtime.io.")
                || type.startsWith("org.apache.flink.streaming.runtime.io.")
                || type.startsWith("org.apache.flink.streaming.runtime.streamrecord.")
                || type.startsWith("org.apache.flink.streaming.runtime.partitioner.")
                || type.startsWith("org.apache.flink.runtime.plugable.")
                || type.startsWith("org.apache.flink.api.common.typeutils.")
                || type.startsWith("org.apache.flink.core.memory.")) {
            return SHUFFLE;
        }
        if (type.startsWith("org.apache.flink.streaming.")
                || type.startsWith("org.apache.flink.runtime.taskmanager.")
                || type.startsWith("org.apache.flink.runtime.metrics.")) {
            return FLINK_TASKS;
        }
        if (type.startsWith("org.apache.flink.") || type.startsWith("org.apache.pekko.") || type.startsWith("scala.")) {
            return FLINK_CLUSTER;
        }
        if (type.startsWith("io.periodtables.bench.")) {
            return BENCH;
        }
        return OTHER;
    }
}
