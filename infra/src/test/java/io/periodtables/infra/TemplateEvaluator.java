package io.periodtables.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Evaluates a CloudFormation template for one set of parameter values, as CloudFormation does
 * before it calls the services: parameter constraints, conditions, {@code Fn::If} with
 * {@code AWS::NoValue}, {@code Ref}, {@code Fn::Sub}, {@code Fn::Join} and {@code Fn::GetAtt}
 * (attribute values come from the caller, as the real ones exist only after creation). The
 * checks then look at the policy and properties a stack with those parameters really gets.
 */
final class TemplateEvaluator {
    static final String PARTITION = "aws";
    static final String REGION = "eu-west-1";
    static final String ACCOUNT = "123456789012";

    private static final Pattern SUB_VARIABLE = Pattern.compile("\\$\\{([^}]+)}");

    private final JsonNode template;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private final Map<String, String> resourceRefs;
    private final Map<String, String> attributes;
    private final Map<String, Boolean> conditions = new HashMap<>();

    /**
     * @param given parameter values; the others take their {@code Default}
     * @param resourceRefs what {@code Ref} of a resource's logical id returns
     * @param attributes what {@code Fn::GetAtt} returns, keyed {@code LogicalId.Attribute}
     */
    TemplateEvaluator(
            JsonNode template,
            Map<String, String> given,
            Map<String, String> resourceRefs,
            Map<String, String> attributes) {
        this.template = template;
        this.resourceRefs = resourceRefs;
        this.attributes = attributes;
        for (String name : given.keySet()) {
            if (!template.path("Parameters").has(name)) {
                throw new IllegalArgumentException("The template has no parameter " + name);
            }
        }
        template.path("Parameters").fields().forEachRemaining(e -> {
            String name = e.getKey();
            JsonNode declaration = e.getValue();
            String value = given.containsKey(name)
                    ? given.get(name)
                    : declaration.has("Default") ? declaration.get("Default").asText() : null;
            if (value == null) {
                throw new IllegalArgumentException("Parameter " + name + " has no default and no value was given");
            }
            checkConstraints(name, declaration, value);
            parameters.put(name, value);
        });
    }

    /** The resource's {@code Properties}, evaluated. */
    JsonNode properties(String logicalId) {
        JsonNode resource = template.path("Resources").path(logicalId);
        if (resource.isMissingNode()) {
            throw new IllegalArgumentException("The template has no resource " + logicalId);
        }
        return evaluate(resource.path("Properties"));
    }

    /** The value of a named condition. */
    boolean condition(String name) {
        Boolean cached = conditions.get(name);
        if (cached == null) {
            JsonNode definition = template.path("Conditions").path(name);
            if (definition.isMissingNode()) {
                throw new IllegalArgumentException("The template has no condition " + name);
            }
            cached = test(definition);
            conditions.put(name, cached);
        }
        return cached;
    }

    /** The node with every intrinsic function applied; {@code null} for {@code AWS::NoValue}. */
    JsonNode evaluate(JsonNode node) {
        if (node.isArray()) {
            ArrayNode result = JsonNodeFactory.instance.arrayNode();
            node.forEach(element -> {
                JsonNode value = evaluate(element);
                if (value != null) {
                    result.add(value);
                }
            });
            return result;
        }
        if (!node.isObject()) {
            return node;
        }
        if (node.size() == 1) {
            String function = node.fieldNames().next();
            if (function.equals("Ref") || function.startsWith("Fn::")) {
                return intrinsic(function, node.get(function));
            }
        }
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        node.fields().forEachRemaining(e -> {
            JsonNode value = evaluate(e.getValue());
            if (value != null) {
                result.set(e.getKey(), value);
            }
        });
        return result;
    }

    private JsonNode intrinsic(String function, JsonNode argument) {
        switch (function) {
            case "Ref":
                return ref(argument.asText());
            case "Fn::GetAtt": {
                String key = argument.get(0).asText() + "." + argument.get(1).asText();
                return TextNode.valueOf(required(attributes, key, "attribute"));
            }
            case "Fn::Sub":
                return TextNode.valueOf(substitute(argument));
            case "Fn::If":
                return evaluate(condition(argument.get(0).asText()) ? argument.get(1) : argument.get(2));
            case "Fn::Join": {
                StringBuilder joined = new StringBuilder();
                Iterator<JsonNode> parts = evaluate(argument.get(1)).elements();
                while (parts.hasNext()) {
                    joined.append(parts.next().asText())
                            .append(parts.hasNext() ? argument.get(0).asText() : "");
                }
                return TextNode.valueOf(joined.toString());
            }
            default:
                throw new UnsupportedOperationException("Not evaluated here: " + function);
        }
    }

    private JsonNode ref(String name) {
        switch (name) {
            case "AWS::NoValue":
                return null;
            case "AWS::Region":
                return TextNode.valueOf(REGION);
            case "AWS::AccountId":
                return TextNode.valueOf(ACCOUNT);
            case "AWS::Partition":
                return TextNode.valueOf(PARTITION);
            case "AWS::StackName":
                return TextNode.valueOf("period-tables-stack");
            default:
                if (!parameters.containsKey(name)) {
                    return TextNode.valueOf(required(resourceRefs, name, "resource reference"));
                }
                String value = parameters.get(name);
                if (!template.path("Parameters")
                        .path(name)
                        .path("Type")
                        .asText()
                        .equals("CommaDelimitedList")) {
                    return TextNode.valueOf(value);
                }
                // a list parameter is a list of its comma-separated values (none when empty)
                ArrayNode list = JsonNodeFactory.instance.arrayNode();
                if (!value.isEmpty()) {
                    for (String element : value.split(",")) {
                        list.add(element.trim());
                    }
                }
                return list;
        }
    }

    private String substitute(JsonNode argument) {
        String text = argument.isArray() ? argument.get(0).asText() : argument.asText();
        Map<String, String> variables = new HashMap<>();
        if (argument.isArray()) {
            argument.get(1)
                    .fields()
                    .forEachRemaining(e ->
                            variables.put(e.getKey(), evaluate(e.getValue()).asText()));
        }
        Matcher m = SUB_VARIABLE.matcher(text);
        StringBuilder result = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String value;
            if (name.startsWith("!")) {
                value = "${" + name.substring(1) + "}";
            } else if (variables.containsKey(name)) {
                value = variables.get(name);
            } else if (name.contains(".") && !name.startsWith("AWS::")) {
                value = required(attributes, name, "attribute");
            } else {
                value = ref(name).asText();
            }
            m.appendReplacement(result, Matcher.quoteReplacement(value));
        }
        m.appendTail(result);
        return result.toString();
    }

    private boolean test(JsonNode definition) {
        String function = definition.fieldNames().next();
        JsonNode argument = definition.get(function);
        switch (function) {
            case "Fn::Equals":
                return evaluate(argument.get(0))
                        .asText()
                        .equals(evaluate(argument.get(1)).asText());
            case "Fn::Not":
                return !test(argument.get(0));
            case "Fn::And":
                for (JsonNode c : argument) {
                    if (!test(c)) {
                        return false;
                    }
                }
                return true;
            case "Fn::Or":
                for (JsonNode c : argument) {
                    if (test(c)) {
                        return true;
                    }
                }
                return false;
            case "Condition":
                return condition(argument.asText());
            default:
                throw new UnsupportedOperationException("Not a condition function: " + function);
        }
    }

    private static void checkConstraints(String name, JsonNode declaration, String value) {
        if (declaration.has("AllowedValues")) {
            boolean allowed = false;
            for (JsonNode v : declaration.get("AllowedValues")) {
                allowed |= v.asText().equals(value);
            }
            if (!allowed) {
                throw new IllegalArgumentException("Parameter " + name + " does not allow '" + value + "'");
            }
        }
        if (declaration.has("AllowedPattern")
                && !value.matches(declaration.get("AllowedPattern").asText())) {
            throw new IllegalArgumentException("Parameter " + name + " does not match its pattern: '" + value + "'");
        }
        if (declaration.has("MinValue")
                        && Double.parseDouble(value)
                                < declaration.get("MinValue").asDouble()
                || declaration.has("MaxValue")
                        && Double.parseDouble(value)
                                > declaration.get("MaxValue").asDouble()) {
            throw new IllegalArgumentException("Parameter " + name + " is out of range: " + value);
        }
    }

    private static String required(Map<String, String> values, String key, String what) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("No value for " + what + " " + key);
        }
        return value;
    }
}
