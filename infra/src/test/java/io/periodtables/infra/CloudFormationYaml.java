package io.periodtables.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads a CloudFormation YAML template into a JSON tree in the long form CloudFormation itself
 * uses: {@code !Ref X} becomes {@code {"Ref": "X"}}, {@code !Sub s} becomes
 * {@code {"Fn::Sub": s}}, {@code !GetAtt A.B} becomes {@code {"Fn::GetAtt": ["A", "B"]}}. An
 * unknown tag fails the read, so a typo cannot hide a statement from the checks.
 */
final class CloudFormationYaml {
    private static final List<String> FUNCTIONS = List.of(
            "Ref",
            "Condition",
            "GetAtt",
            "Sub",
            "If",
            "Equals",
            "Not",
            "And",
            "Or",
            "Join",
            "Select",
            "Split",
            "FindInMap",
            "GetAZs",
            "ImportValue",
            "Base64",
            "Cidr");

    private CloudFormationYaml() {}

    static JsonNode read(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            Object tree = new Yaml(new IntrinsicConstructor(new LoaderOptions())).load(reader);
            return new ObjectMapper().valueToTree(tree);
        }
    }

    private static final class IntrinsicConstructor extends SafeConstructor {
        IntrinsicConstructor(LoaderOptions options) {
            super(options);
            for (String function : FUNCTIONS) {
                yamlConstructors.put(new Tag("!" + function), new Intrinsic(function));
            }
        }

        private final class Intrinsic extends AbstractConstruct {
            private final String function;

            Intrinsic(String function) {
                this.function = function;
            }

            @Override
            public Object construct(Node node) {
                Object value;
                if (node instanceof ScalarNode scalar) {
                    value = constructScalar(scalar);
                } else if (node instanceof SequenceNode sequence) {
                    value = constructSequence(sequence);
                } else {
                    value = constructMapping((MappingNode) node);
                }
                if (function.equals("GetAtt") && value instanceof String dotted) {
                    value = List.of(dotted.split("\\.", 2));
                }
                String key = function.equals("Ref") || function.equals("Condition") ? function : "Fn::" + function;
                return Map.of(key, value);
            }
        }
    }
}
