package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hot path of the production topology, both sources. Every record it sends between operators,
 * and every key, has an explicit serializer: the graph builds with Flink's generic (Kryo) types
 * disabled, which fails on the first type that would fall back to Kryo (Kryo would cost CPU and
 * break savepoints on any class change). And the operators between the source and the key-by run
 * in the source's task: a reading is parsed, checked against the restored watermark, split off
 * from rejections, counted for the write load and thinned into rotation ticks without being
 * serialized in between. After the key-by, the period records are written in the windows' task.
 */
class TopologySerializersTest {

    @ParameterizedTest
    @ValueSource(strings = {"generator", "kinesis"})
    void productionTopologyNeedsNoGenericSerializer(String source) {
        StreamGraph graph = productionGraph(source, true);

        List<TypeSerializer<?>> serializers = new ArrayList<>();
        for (StreamNode node : graph.getStreamNodes()) {
            serializers.add(node.getTypeSerializerOut());
            serializers.addAll(List.of(node.getTypeSerializersIn()));
            serializers.add(node.getStateKeySerializer());
        }
        assertThat(graph.getStreamNodes()).hasSizeGreaterThan(5);
        assertThat(serializers.stream().filter(Objects::nonNull).toList())
                .isNotEmpty()
                .noneMatch(s -> s instanceof KryoSerializer);
    }

    @ParameterizedTest
    @ValueSource(strings = {"generator", "kinesis"})
    void everythingBeforeTheKeyByIsChainedToTheSource(String source) {
        List<String> vertices = taskNames(source);
        assertThat(vertices)
                .filteredOn(name -> name.startsWith("Source: "))
                .singleElement()
                .satisfies(name -> assertThat(name)
                        .contains("Checkpointed watermark", "Readings and rejections", "Write load", "Rotation ticks"));
        assertThat(vertices)
                .noneMatch(name -> name.startsWith("Write load")
                        || name.startsWith("Checkpointed watermark")
                        || name.startsWith("Rotation ticks"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"generator", "kinesis"})
    void periodRecordsReachTheirSinkInTheWindowsTaskAndLateOnesAreRoutedWhereJudged(String source) {
        List<String> vertices = taskNames(source);
        assertThat(vertices)
                .filteredOn(name -> name.startsWith(PeriodTablesTopology.WINDOWS_NAME))
                .singleElement()
                .satisfies(name -> assertThat(name).contains("Late in windows", "DynamoDB period tables"));
        assertThat(vertices)
                .filteredOn(name -> name.startsWith("Source: "))
                .singleElement()
                .satisfies(name -> assertThat(name).contains("Late readings"));
        assertThat(vertices)
                .noneMatch(name -> name.startsWith("DynamoDB period tables") || name.startsWith("Late readings"));
    }

    private static List<String> taskNames(String source) {
        List<String> names = new ArrayList<>();
        for (JobVertex vertex : productionGraph(source, false).getJobGraph().getVertices()) {
            names.add(vertex.getName());
        }
        return names;
    }

    private static StreamGraph productionGraph(String source, boolean withoutGenericTypes) {
        PeriodTablesConfig config = ConfigLoader.fromMap(
                Map.of(
                        "source", source,
                        "kinesis.stream-arn", "arn:aws:kinesis:eu-west-1:000000000000:stream/readings",
                        "kinesis.endpoint", "http://127.0.0.1:1",
                        "dynamodb.endpoint", "http://127.0.0.1:1"),
                true);
        Configuration flink = new Configuration();
        if (withoutGenericTypes) {
            flink.set(PipelineOptions.GENERIC_TYPES, false);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        assertThat(env.getConfig().getSerializerConfig().hasGenericTypesDisabled())
                .isEqualTo(withoutGenericTypes);
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        return env.getStreamGraph();
    }
}
