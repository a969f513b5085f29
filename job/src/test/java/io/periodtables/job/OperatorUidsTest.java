package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * The uids of the production graph, every variant of it (generator or Kinesis source, archive on
 * or off), are exactly the ones operations.md lists for savepoint compatibility: a new operator
 * without a documented uid, or a documented one the code lost, fails here.
 */
class OperatorUidsTest {
    private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");
    private static final Pattern LIST =
            Pattern.compile("All our operators have fixed uids:(.*?)`PeriodTablesTopology`", Pattern.DOTALL);
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void everyUidOfTheProductionGraphIsDocumentedAndNoOther() throws IOException {
        Set<String> inGraph = new TreeSet<>();
        inGraph.addAll(uids(Map.of()));
        inGraph.addAll(uids(Map.of(
                "source",
                "kinesis",
                "kinesis.stream-arn",
                "arn:aws:kinesis:us-east-1:000000000000:stream/readings",
                "archive.path",
                "file:///tmp/period-tables-archive",
                "rollups.every",
                "PT1M,PT1H")));

        assertThat(inGraph)
                .contains("period-sink", "period-rotation", "generator-source", "kinesis-source", "archive-sink");
        assertThat(documented()).isEqualTo(inGraph);
    }

    private static Set<String> uids(Map<String, String> keys) {
        PeriodTablesConfig config = ConfigLoader.fromMap(keys, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        Set<String> uids = new TreeSet<>();
        for (StreamNode node : env.getStreamGraph(false).getStreamNodes()) {
            if (node.getTransformationUID() != null) {
                uids.add(node.getTransformationUID());
            }
        }
        for (Transformation<?> t : env.getTransformations()) {
            t.getTransitivePredecessors().stream()
                    .map(Transformation::getUid)
                    .filter(Objects::nonNull)
                    .forEach(uids::add);
        }
        return uids;
    }

    private static Set<String> documented() throws IOException {
        Matcher list = LIST.matcher(Files.readString(OPERATIONS));
        assertThat(list.find()).as("operations.md lists the uids").isTrue();
        String text = list.group(1);
        // the sentence about releases before 0.1.0 names uids that are gone on purpose
        String current = text.contains("(Releases before") ? text.substring(0, text.indexOf("(Releases before")) : text;
        Set<String> uids = new TreeSet<>();
        Matcher code = CODE.matcher(current);
        while (code.find()) {
            uids.add(code.group(1));
        }
        return uids;
    }
}
