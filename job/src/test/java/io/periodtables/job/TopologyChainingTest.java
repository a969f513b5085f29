package io.periodtables.job;

import io.periodtables.conf.ConfigLoader;
import io.periodtables.conf.PeriodTablesConfig;

import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operators between the source and the keyed windows run in the source's task: a reading is
 * parsed, checked against the restored watermark, split off from rejections and counted for the
 * write load without being serialized between them. The first network hop is the key-by.
 */
class TopologyChainingTest {

    @ParameterizedTest
    @ValueSource(strings = {"generator", "kinesis"})
    void everythingBeforeTheKeyByIsChainedToTheSource(String source) {
        PeriodTablesConfig config = ConfigLoader.fromMap(Map.of(
                "source", source,
                "kinesis.stream-arn", "arn:aws:kinesis:eu-west-1:000000000000:stream/readings",
                "kinesis.endpoint", "http://127.0.0.1:1",
                "dynamodb.endpoint", "http://127.0.0.1:1"), true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        JobGraph graph = env.getStreamGraph().getJobGraph();

        List<String> vertices = new ArrayList<>();
        for (JobVertex vertex : graph.getVertices()) {
            vertices.add(vertex.getName());
        }
        assertThat(vertices)
                .filteredOn(name -> name.startsWith("Source: "))
                .singleElement()
                .satisfies(name -> assertThat(name).contains("Checkpointed watermark", "Readings and rejections", "Write load"));
        assertThat(vertices).noneMatch(name -> name.startsWith("Write load") || name.startsWith("Checkpointed watermark"));
    }
}
