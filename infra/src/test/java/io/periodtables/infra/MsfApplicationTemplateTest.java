package io.periodtables.infra;

import static io.periodtables.infra.PeriodTablesTemplate.EVERYTHING_SET;
import static io.periodtables.infra.PeriodTablesTemplate.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.periodtables.core.config.ConfigKey;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The MSF application of {@code infra/period-tables.yaml}: Flink 1.20, snapshots and
 * checkpointing on, parallelism bounded by the job's max parallelism, logs to its own stream,
 * and runtime property groups that load as a valid period-tables configuration.
 */
class MsfApplicationTemplateTest {
    /** The job's fixed max parallelism (PeriodTablesTopology.MAX_PARALLELISM). */
    private static final int JOB_MAX_PARALLELISM = 720;

    @Test
    void applicationRunsFlink120WithSnapshotsAndCheckpointing() {
        JsonNode app = PeriodTablesTemplate.stack(MINIMAL).properties("Application");
        assertThat(app.path("RuntimeEnvironment").asText()).isEqualTo("FLINK-1_20");
        JsonNode config = app.path("ApplicationConfiguration");
        assertThat(config.path("ApplicationSnapshotConfiguration")
                        .path("SnapshotsEnabled")
                        .asBoolean())
                .isTrue();
        JsonNode checkpoints = config.path("FlinkApplicationConfiguration").path("CheckpointConfiguration");
        assertThat(checkpoints.path("ConfigurationType").asText()).isEqualTo("CUSTOM");
        assertThat(checkpoints.path("CheckpointingEnabled").asBoolean()).isTrue();
        assertThat(checkpoints.path("CheckpointInterval").asText()).isEqualTo("60000");
        assertThat(app.path("ServiceExecutionRole").asText()).isEqualTo(PeriodTablesTemplate.ROLE_ARN);
    }

    @Test
    void parallelismComesFromParametersBoundedByTheJobsMaxParallelism() {
        JsonNode parallelism = PeriodTablesTemplate.raw()
                .path("Resources")
                .path("Application")
                .path("Properties")
                .path("ApplicationConfiguration")
                .path("FlinkApplicationConfiguration")
                .path("ParallelismConfiguration");
        assertThat(parallelism.path("ConfigurationType").asText()).isEqualTo("CUSTOM");
        assertThat(parallelism.path("Parallelism").path("Ref").asText()).isEqualTo("Parallelism");
        assertThat(parallelism.path("ParallelismPerKPU").path("Ref").asText()).isEqualTo("ParallelismPerKPU");
        assertThat(parallelism.path("AutoScalingEnabled").path("Ref").asText()).isEqualTo("AutoScalingEnabled");
        JsonNode parameter = PeriodTablesTemplate.raw().path("Parameters").path("Parallelism");
        assertThat(parameter.path("MaxValue").asInt()).isEqualTo(JOB_MAX_PARALLELISM);
        assertThat(PeriodTablesTemplate.raw()
                        .path("Parameters")
                        .path("ParallelismPerKPU")
                        .path("MaxValue")
                        .asInt())
                .isEqualTo(8);
    }

    @Test
    void codeIsTheJarAtTheGivenBucketKeyAndVersion() {
        JsonNode location = PeriodTablesTemplate.stack(EVERYTHING_SET)
                .properties("Application")
                .path("ApplicationConfiguration")
                .path("ApplicationCodeConfiguration");
        assertThat(location.path("CodeContentType").asText()).isEqualTo("ZIPFILE");
        JsonNode s3 = location.path("CodeContent").path("S3ContentLocation");
        assertThat(s3.path("BucketARN").asText()).isEqualTo("arn:aws:s3:::code-bucket");
        assertThat(s3.path("FileKey").asText()).isEqualTo("releases/period-tables-job-0.2.0.jar");
        assertThat(s3.path("ObjectVersion").asText()).isEqualTo("3HL4kqtJlcpXroDTDmJ-rmSpXd3dIbrHY");
        assertThat(PeriodTablesTemplate.stack(MINIMAL)
                        .properties("Application")
                        .path("ApplicationConfiguration")
                        .path("ApplicationCodeConfiguration")
                        .path("CodeContent")
                        .path("S3ContentLocation")
                        .has("ObjectVersion"))
                .isFalse();
    }

    @Test
    void runningApplicationRestoresFromTheLatestSnapshotAndRefusesUnmappedStateByDefault() {
        JsonNode run =
                PeriodTablesTemplate.stack(MINIMAL).properties("Application").path("RunConfiguration");
        assertThat(run.path("ApplicationRestoreConfiguration")
                        .path("ApplicationRestoreType")
                        .asText())
                .isEqualTo("RESTORE_FROM_LATEST_SNAPSHOT");
        assertThat(run.path("ApplicationRestoreConfiguration").has("SnapshotName"))
                .isFalse();
        assertThat(run.path("FlinkRunConfiguration")
                        .path("AllowNonRestoredState")
                        .asText())
                .isEqualTo("false");
    }

    @Test
    void applicationLogsToTheStreamTheRoleMayWrite() {
        TemplateEvaluator stack = PeriodTablesTemplate.stack(MINIMAL);
        JsonNode logging = stack.properties("ApplicationLogging");
        assertThat(logging.path("ApplicationName").asText()).isEqualTo("period-tables");
        String streamArn =
                logging.path("CloudWatchLoggingOption").path("LogStreamARN").asText();
        assertThat(PeriodTablesTemplate.statements(MINIMAL)).anySatisfy(s -> {
            assertThat(s.actions()).containsExactly("logs:PutLogEvents");
            assertThat(s.resources()).containsExactly(streamArn);
        });
        assertThat(stack.properties("LogGroup").path("LogGroupName").asText())
                .isEqualTo(PeriodTablesTemplate.LOG_GROUP);
    }

    @Test
    void everyPropertyGroupKeyIsAConfigurationKey() {
        JsonNode groups = PeriodTablesTemplate.raw()
                .path("Resources")
                .path("Application")
                .path("Properties")
                .path("ApplicationConfiguration")
                .path("EnvironmentProperties")
                .path("PropertyGroups");
        assertThat(groups).isNotEmpty();
        groups.forEach(group -> {
            String id = group.path("PropertyGroupId").asText();
            group.path("PropertyMap")
                    .fieldNames()
                    .forEachRemaining(key -> assertThat(ConfigKeys.byName(RuntimePropertyGroups.configName(id, key)))
                            .as("group %s key %s", id, key)
                            .isNotNull());
        });
    }

    /**
     * Keys with no parameter: the local run's (on MSF the service sets parallelism and
     * checkpointing), the synthetic fleet's and the emulators' endpoints. docs/operations.md says so.
     */
    private static final Set<String> LOCAL_ONLY = Set.of(
            "dynamodb.embedded",
            "dynamodb.limits",
            "aws.endpoint",
            "dynamodb.endpoint",
            "kinesis.endpoint",
            "parallelism",
            "checkpoint.interval");

    @Test
    void everyConfigurationKeyOfAnMsfRunHasAWayInThroughTheTemplate() {
        Set<String> wired = new LinkedHashSet<>();
        PeriodTablesTemplate.raw()
                .path("Resources")
                .path("Application")
                .path("Properties")
                .path("ApplicationConfiguration")
                .path("EnvironmentProperties")
                .path("PropertyGroups")
                .forEach(group -> {
                    // an optional group (archive) is wrapped in Fn::If
                    JsonNode g = group.has("Fn::If") ? group.get("Fn::If").get(1) : group;
                    g.path("PropertyMap")
                            .fieldNames()
                            .forEachRemaining(key -> wired.add(RuntimePropertyGroups.configName(
                                    g.path("PropertyGroupId").asText(), key)));
                });
        List<String> names = ConfigKeys.all().stream().map(ConfigKey::name).toList();
        assertThat(names).containsAll(LOCAL_ONLY);
        for (String name : names) {
            if (!LOCAL_ONLY.contains(name) && !name.startsWith("generator.")) {
                assertThat(wired)
                        .as("configuration key %s has a parameter", name)
                        .contains(name);
            }
        }
    }

    /** CloudFormation takes a template body up to this size inline; a larger one must come from S3. */
    private static final long INLINE_TEMPLATE_LIMIT = 51_200;

    @Test
    void theGuideDeploysATemplateOverTheInlineLimitThroughS3() throws IOException {
        String guide = Files.readString(Path.of("..", "docs", "operations.md")).replace("\\\n", " ");
        List<String> deploys = guide.lines()
                .filter(line -> line.startsWith("aws cloudformation deploy"))
                .toList();
        assertThat(deploys).hasSizeGreaterThanOrEqualTo(2);
        if (Files.size(PeriodTablesTemplate.FILE) > INLINE_TEMPLATE_LIMIT) {
            assertThat(deploys).allSatisfy(deploy -> assertThat(deploy).contains("--s3-bucket"));
        }
    }

    @Test
    void everyParameterWiredToAKeyOffersOnlyValuesTheKeyAccepts() {
        Map<String, String> wired = new LinkedHashMap<>();
        PeriodTablesTemplate.raw()
                .path("Resources")
                .path("Application")
                .path("Properties")
                .path("ApplicationConfiguration")
                .path("EnvironmentProperties")
                .path("PropertyGroups")
                .forEach(group -> group.path("PropertyMap").fields().forEachRemaining(e -> {
                    JsonNode value = e.getValue().has("Fn::If")
                            ? e.getValue().get("Fn::If").get(1)
                            : e.getValue();
                    if (value.has("Ref") && !value.get("Ref").asText().startsWith("AWS::")) {
                        wired.put(
                                value.get("Ref").asText(),
                                RuntimePropertyGroups.configName(
                                        group.path("PropertyGroupId").asText(), e.getKey()));
                    }
                }));
        assertThat(wired)
                .containsEntry("TablePrefix", "tables.prefix")
                .containsEntry("TableShards", "tables.shards")
                .containsEntry("TableRetention", "tables.retention")
                .hasSizeGreaterThan(10);
        wired.forEach((parameter, keyName) -> {
            ConfigKey<?> key = ConfigKeys.byName(keyName);
            JsonNode declaration = PeriodTablesTemplate.raw().path("Parameters").path(parameter);
            String defaultValue = declaration.path("Default").asText();
            if (!defaultValue.isEmpty()) {
                assertThat(key.parse(defaultValue))
                        .as("%s default for %s", parameter, keyName)
                        .isNotNull();
            }
            declaration
                    .path("AllowedValues")
                    .forEach(v -> assertThat(v.asText().isEmpty() ? "unset" : key.parse(v.asText()))
                            .as("%s value %s for %s", parameter, v, keyName)
                            .isNotNull());
        });
    }

    @Test
    void defaultPropertyGroupsLoadAsAKinesisConfigurationForTheCreatedStream() {
        PeriodTablesConfig config = load(MINIMAL);
        assertThat(config.get(ConfigKeys.SOURCE)).isEqualTo(ConfigKeys.SourceKind.KINESIS);
        assertThat(config.get(ConfigKeys.KINESIS_STREAM_ARN)).isEqualTo(PeriodTablesTemplate.STREAM_ARN);
        assertThat(config.get(ConfigKeys.KINESIS_INITIAL_POSITION)).isEqualTo(ConfigKeys.InitialPosition.TRIM_HORIZON);
        assertThat(config.get(ConfigKeys.AWS_REGION)).isEqualTo(TemplateEvaluator.REGION);
        assertThat(config.get(TableKeys.TABLES_PREFIX)).isEqualTo("readings");
        assertThat(config.get(ConfigKeys.DYNAMODB_EMBEDDED)).isFalse();
        assertThat(config.find(TableKeys.TABLES_TTL)).isEmpty();
        assertThat(config.find(TableKeys.TABLES_RETENTION)).isEmpty();
        assertThat(config.find(TableKeys.TABLES_SSE_KMS_KEY)).isEmpty();
        assertThat(config.find(ConfigKeys.ARCHIVE_PATH)).isEmpty();
    }

    @Test
    void optionalParametersReachTheirKeys() {
        PeriodTablesConfig config = load(EVERYTHING_SET);
        assertThat(config.get(ConfigKeys.KINESIS_INITIAL_POSITION)).isEqualTo(ConfigKeys.InitialPosition.AT_TIMESTAMP);
        assertThat(config.get(ConfigKeys.KINESIS_INITIAL_TIMESTAMP)).hasToString("2026-11-01T00:00:00Z");
        assertThat(config.get(TableKeys.TABLES_PREFIX)).isEqualTo("fleet.eu-1");
        assertThat(config.get(TableKeys.TABLES_SHARDS)).isEqualTo(8);
        assertThat(config.get(TableKeys.TABLES_TTL)).isEqualTo(Duration.ofDays(90));
        assertThat(config.get(TableKeys.TABLES_RETENTION)).isEqualTo(Duration.ofDays(30));
        assertThat(config.get(TableKeys.TABLES_SSE_KMS_KEY)).isEqualTo(PeriodTablesTemplate.KMS_KEY);
        assertThat(config.get(TableKeys.TABLES_DELETION_PROTECTION)).isTrue();
        assertThat(config.get(ConfigKeys.ROTATION_LEAD)).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.get(ConfigKeys.ROTATION_LOWERING_STALL_AFTER)).isEqualTo(Duration.ofMinutes(45));
        assertThat(config.get(ConfigKeys.ALLOWED_LATENESS)).isEqualTo(Duration.ofMinutes(2));
        assertThat(config.get(ConfigKeys.ARCHIVE_PATH)).isEqualTo("s3://archive-bucket/fleet/archive");
        assertThat(config.get(ConfigKeys.ARCHIVE_COLUMNS)).hasSize(2);
        assertThat(config.get(ConfigKeys.ROLLUPS_EVERY)).containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(15));
        assertThat(config.get(ConfigKeys.SINK_MAX_IN_FLIGHT)).isEqualTo(8);
        assertThat(config.get(TableKeys.TABLES_CLASS_CLOSED))
                .isEqualTo(ConfigKeys.TableClass.STANDARD_INFREQUENT_ACCESS);
        assertThat(config.get(ConfigKeys.LIMITS_MAX_TABLES)).isEqualTo(2000);
    }

    @Test
    void outputsNameTheApplicationStreamAndRole() {
        TemplateEvaluator stack = PeriodTablesTemplate.stack(MINIMAL);
        JsonNode outputs = PeriodTablesTemplate.raw().path("Outputs");
        assertThat(stack.evaluate(outputs.path("ApplicationName").path("Value")).asText())
                .isEqualTo("period-tables");
        assertThat(stack.evaluate(outputs.path("StreamArn").path("Value")).asText())
                .isEqualTo(PeriodTablesTemplate.STREAM_ARN);
        assertThat(stack.evaluate(outputs.path("RoleArn").path("Value")).asText())
                .isEqualTo(PeriodTablesTemplate.ROLE_ARN);
    }

    /** What the job's ConfigLoader reads from a stack's runtime property groups. */
    private static PeriodTablesConfig load(Map<String, String> parameters) {
        JsonNode groups = PeriodTablesTemplate.stack(parameters)
                .properties("Application")
                .path("ApplicationConfiguration")
                .path("EnvironmentProperties")
                .path("PropertyGroups");
        return ConfigLoader.load(new String[0], RuntimePropertyGroups.toProperties(groups), false);
    }
}
