package io.periodtables.job.reliability;

import io.periodtables.emulators.S3Call;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The S3 statements of the CloudFormation template ({@code infra/period-tables.yaml}) that name
 * the archive bucket, evaluated for one bucket and prefix as IAM does for an allow list: an action
 * on a resource is allowed when a statement lists the action, one of its resources matches
 * ({@code *} and {@code ?} wildcards) and its {@code StringLike s3:prefix} condition, if any,
 * matches the request's prefix (a listing without one does not). infra's InfraTemplateTest
 * checks the statements' shape; this reads them for what the job really calls.
 */
final class ArchivePolicy {
    private static final Path TEMPLATE = Path.of("../infra/period-tables.yaml");

    private final List<Statement> statements;

    private ArchivePolicy(List<Statement> statements) {
        this.statements = statements;
    }

    record Statement(Set<String> actions, List<String> resources, List<String> prefixes) {}

    /** The template's archive statements for {@code archive.path = s3://bucket/prefix}. */
    static ArchivePolicy of(String bucket, String prefix) throws IOException {
        Object template;
        try (Reader reader = Files.newBufferedReader(TEMPLATE, StandardCharsets.UTF_8)) {
            template = new Yaml(new IntrinsicTags()).load(reader);
        }
        Map<String, String> values = Map.of("AWS::Partition", "aws", "ArchiveBucket", bucket, "ArchivePrefix", prefix);
        List<Statement> found = new ArrayList<>();
        collect(template, values, found);
        if (found.isEmpty()) {
            throw new IllegalStateException("no statement naming ArchiveBucket in " + TEMPLATE.toAbsolutePath());
        }
        return new ArchivePolicy(found);
    }

    boolean allows(S3Call.Permission permission) {
        return statements.stream()
                .anyMatch(s -> s.actions().contains(permission.action())
                        && s.resources().stream().anyMatch(r -> matches(r, permission.resource()))
                        && (s.prefixes().isEmpty()
                                || permission
                                        .prefix()
                                        .filter(p -> s.prefixes().stream().anyMatch(pattern -> matches(pattern, p)))
                                        .isPresent()));
    }

    /** Every action the archive statements grant. */
    Set<String> grantedActions() {
        return statements.stream().flatMap(s -> s.actions().stream()).collect(Collectors.toCollection(TreeSet::new));
    }

    private static boolean matches(String pattern, String value) {
        StringBuilder regex = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return value.matches(regex.toString());
    }

    private static void collect(Object node, Map<String, String> values, List<Statement> found) {
        if (node instanceof Map<?, ?> map) {
            if (map.containsKey("Effect") && map.containsKey("Action") && map.containsKey("Resource")) {
                if ("Allow".equals(map.get("Effect"))
                        && String.valueOf(map.get("Resource")).contains("ArchiveBucket")) {
                    List<String> resources = texts(map.get("Resource"), values);
                    List<String> prefixes = List.of();
                    if (map.get("Condition") instanceof Map<?, ?> condition
                            && condition.get("StringLike") instanceof Map<?, ?> like) {
                        prefixes = texts(like.get("s3:prefix"), values);
                    }
                    found.add(new Statement(new TreeSet<>(texts(map.get("Action"), values)), resources, prefixes));
                }
                return;
            }
            map.values().forEach(v -> collect(v, values, found));
        } else if (node instanceof Collection<?> list) {
            list.forEach(v -> collect(v, values, found));
        }
    }

    /** A string, a list of them, {@code !Ref} or {@code !Sub} with {@code values} filled in. */
    private static List<String> texts(Object node, Map<String, String> values) {
        if (node instanceof Collection<?> list) {
            return list.stream().flatMap(v -> texts(v, values).stream()).toList();
        }
        if (node instanceof Map<?, ?> map && map.size() == 1) {
            Map.Entry<?, ?> function = map.entrySet().iterator().next();
            String argument = String.valueOf(function.getValue());
            if (function.getKey().equals("Ref")) {
                return List.of(Optional.ofNullable(values.get(argument))
                        .orElseThrow(() -> new IllegalStateException("no value for !Ref " + argument)));
            }
            if (function.getKey().equals("Sub")) {
                String text = argument;
                for (Map.Entry<String, String> v : values.entrySet()) {
                    text = text.replace("${" + v.getKey() + "}", v.getValue());
                }
                if (text.contains("${")) {
                    throw new IllegalStateException("unresolved !Sub " + argument);
                }
                return List.of(text);
            }
        }
        if (node instanceof String text) {
            return List.of(text);
        }
        throw new IllegalStateException("cannot read " + node + " as text");
    }

    /** Reads {@code !Ref x} as {@code {Ref: x}}, {@code !Sub s} as {@code {Sub: s}}, and so on. */
    private static final class IntrinsicTags extends SafeConstructor {
        IntrinsicTags() {
            super(new LoaderOptions());
            yamlMultiConstructors.put("!", new AbstractConstruct() {
                @Override
                public Object construct(Node node) {
                    String function = node.getTag().getValue().substring(1);
                    Object value = node instanceof ScalarNode scalar
                            ? constructScalar(scalar)
                            : node instanceof SequenceNode sequence
                                    ? constructSequence(sequence)
                                    : constructMapping((MappingNode) node);
                    return Map.of(function, value);
                }
            });
        }
    }
}
