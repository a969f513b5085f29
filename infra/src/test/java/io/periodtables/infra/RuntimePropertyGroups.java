package io.periodtables.infra;

import com.fasterxml.jackson.databind.JsonNode;
import io.periodtables.core.config.ConfigLoader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * MSF runtime property groups, {@code [{"PropertyGroupId": …, "PropertyMap": {…}}]}, as the job
 * receives them from {@code KinesisAnalyticsRuntime.getApplicationProperties()}.
 */
final class RuntimePropertyGroups {
    private RuntimePropertyGroups() {}

    /** Group id to its properties; a group id given twice fails, as MSF refuses it. */
    static Map<String, Properties> toProperties(JsonNode groups) {
        Map<String, Properties> result = new LinkedHashMap<>();
        for (JsonNode group : groups) {
            String id = group.path("PropertyGroupId").asText();
            Properties properties = new Properties();
            group.path("PropertyMap").fields().forEachRemaining(e -> {
                if (!e.getValue().isTextual()) {
                    throw new IllegalArgumentException(
                            "Group " + id + " key " + e.getKey() + ": values are strings in MSF");
                }
                properties.setProperty(e.getKey(), e.getValue().asText());
            });
            if (result.put(id, properties) != null) {
                throw new IllegalArgumentException("Property group " + id + " appears twice");
            }
        }
        return result;
    }

    /** The configuration key of a property: {@code <group>.<key>}, or the key alone in group {@code job}. */
    static String configName(String group, String key) {
        return group.equals(ConfigLoader.JOB_GROUP) ? key : group + "." + key;
    }
}
