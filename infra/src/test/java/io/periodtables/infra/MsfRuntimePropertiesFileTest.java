package io.periodtables.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/msf-runtime-properties.json}, the development copy of an application's runtime
 * properties: the exact JSON shape MSF writes, and nothing in it but real configuration keys
 * with values the job accepts.
 */
class MsfRuntimePropertiesFileTest {
    private static final Path FILE = Path.of("..", "docs", "msf-runtime-properties.json");

    private static JsonNode groups;

    @BeforeAll
    static void read() throws IOException {
        groups = new ObjectMapper().readTree(FILE.toFile());
    }

    @Test
    void fileHasTheShapeMsfUses() {
        assertThat(groups.isArray()).isTrue();
        assertThat(groups).isNotEmpty().allSatisfy(group -> {
            assertThat(group.fieldNames()).toIterable().containsExactlyInAnyOrder("PropertyGroupId", "PropertyMap");
            assertThat(group.path("PropertyGroupId").isTextual()).isTrue();
            assertThat(group.path("PropertyMap").isObject()).isTrue();
            group.path("PropertyMap")
                    .forEach(value -> assertThat(value.isTextual()).isTrue());
        });
    }

    @Test
    void everyKeyIsAConfigurationKey() {
        Map<String, Properties> runtime = RuntimePropertyGroups.toProperties(groups);
        runtime.forEach((group, properties) -> properties
                .stringPropertyNames()
                .forEach(key -> assertThat(ConfigKeys.byName(RuntimePropertyGroups.configName(group, key)))
                        .as("group %s key %s", group, key)
                        .isNotNull()));
    }

    @Test
    void fileLoadsAsAValidLocalConfiguration() {
        PeriodTablesConfig config = ConfigLoader.load(new String[0], RuntimePropertyGroups.toProperties(groups), true);
        assertThat(config.get(ConfigKeys.SOURCE)).isEqualTo(ConfigKeys.SourceKind.KINESIS);
        assertThat(config.get(ConfigKeys.KINESIS_STREAM_ARN)).endsWith(":stream/period-tables-readings");
        assertThat(config.get(TableKeys.TABLES_SHARDS)).isEqualTo(4);
        assertThat(config.dynamoDbEndpoint()).isPresent();
    }
}
