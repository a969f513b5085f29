package io.periodtables.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.period.PeriodLength;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigLoaderTest {

    private static PeriodTablesConfig load(String... args) {
        return ConfigLoader.load(args, Map.of(), true);
    }

    @Test
    void aLocalFleetsFirstTablesHoldItsRate() {
        // the demo's 2,000 readings a wall-clock second, before any table is sized from observation
        assertThat(load("--generator.rate", "2000").capacity(CapacityTier.CURRENT))
                .isEqualTo(Capacity.provisioned(2858, 300));
        assertThat(load("--generator.rate", "200").capacity(CapacityTier.CURRENT))
                .isEqualTo(Capacity.provisioned(1000, 300));
        // an unthrottled fleet (the benches' 1e9 a second) gets the per-table quota, not a refusal
        assertThat(load("--generator.rate", "1000000000").capacity(CapacityTier.CURRENT))
                .isEqualTo(Capacity.provisioned(40_000, 300));
        assertThat(load("--generator.rate", "2000", "--tables.capacity.current", "50/5")
                        .capacity(CapacityTier.CURRENT))
                .isEqualTo(Capacity.provisioned(50, 5));
        // ./run-local --source kinesis puts the same fleet into its own stream
        assertThat(load(
                                "--source",
                                "kinesis",
                                "--kinesis.stream-arn",
                                "arn:aws:kinesis:us-east-1:000000000000:stream/local",
                                "--generator.rate",
                                "2000")
                        .capacity(CapacityTier.CURRENT))
                .isEqualTo(Capacity.provisioned(2858, 300));
    }

    @Test
    void defaultsMatchTheDesignTable() {
        PeriodTablesConfig c = load();
        assertThat(c.get(ConfigKeys.SOURCE)).isEqualTo(ConfigKeys.SourceKind.GENERATOR);
        assertThat(c.get(TableKeys.TABLES_PREFIX)).isEqualTo("readings");
        assertThat(c.get(TableKeys.TABLES_PERIOD)).isEqualTo(PeriodLength.DAY);
        assertThat(c.get(TableKeys.TABLES_ZONE)).isEqualTo(ZoneId.of("UTC"));
        assertThat(c.get(TableKeys.TABLES_SHARDS)).isEqualTo(1);
        assertThat(c.capacity(CapacityTier.CURRENT)).isEqualTo(Capacity.provisioned(1000, 300));
        assertThat(c.capacity(CapacityTier.PREVIOUS)).isEqualTo(Capacity.provisioned(1, 100));
        assertThat(c.capacity(CapacityTier.OLDER)).isEqualTo(Capacity.provisioned(1, 1));
        assertThat(c.get(ConfigKeys.ROTATION_LEAD)).isEqualTo(Duration.ofMinutes(15));
        assertThat(c.get(ConfigKeys.ALLOWED_LATENESS)).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.get(ConfigKeys.LATE_POLICY)).isEqualTo(ConfigKeys.LatePolicy.LATE_TABLE);
        assertThat(c.ttl()).isEmpty();
        assertThat(c.startsEmbeddedDynamoDb()).isTrue();
    }

    @Test
    void embeddedDynamoDbDefaultsOffOnManagedFlink() {
        assertThat(ConfigLoader.load(new String[0], Map.of(), false).startsEmbeddedDynamoDb())
                .isFalse();
    }

    @Test
    void precedenceIsDefaultsThenFileThenRuntimePropertiesThenCommandLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.properties");
        Files.writeString(file, "tables.prefix=fromfile\ntables.shards=2\ntables.period=PT1H\naws.region=eu-west-1\n");
        Properties tables = new Properties();
        tables.setProperty("shards", "3");
        tables.setProperty("prefix", "fromgroup");
        Properties job = new Properties();
        job.setProperty("source", "generator");
        PeriodTablesConfig c = ConfigLoader.load(
                new String[] {"--config", file.toString(), "--tables.prefix", "fromcli"},
                Map.of("tables", tables, "job", job),
                true);
        assertThat(c.get(TableKeys.TABLES_PREFIX)).isEqualTo("fromcli");
        assertThat(c.get(TableKeys.TABLES_SHARDS)).isEqualTo(3);
        assertThat(c.get(TableKeys.TABLES_PERIOD).toString()).isEqualTo("PT1H");
        assertThat(c.get(ConfigKeys.AWS_REGION)).isEqualTo("eu-west-1");
        assertThat(c.get(TableKeys.TABLES_RETENTION)).isNull();
    }

    @Test
    void equalsFormOfArgumentsWorks() {
        assertThat(load("--tables.shards=7").get(TableKeys.TABLES_SHARDS)).isEqualTo(7);
    }

    @Test
    void unknownKeyNamesTheKeyAndSuggestsTheClosest() {
        assertThatThrownBy(() -> load("--tables.shard", "4"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Unknown configuration key 'tables.shard' (did you mean 'tables.shards'?);"
                        + " see the table in docs/configuration.md");
    }

    @Test
    void unknownKeyInARuntimePropertyGroupIsRefused() {
        Properties tables = new Properties();
        tables.setProperty("sharding", "2");
        assertThatThrownBy(() -> ConfigLoader.load(new String[0], Map.of("tables", tables), false))
                .hasMessageContaining("'tables.sharding'");
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tables.period | PT7M | divide",
                "tables.period | tomorrow | P1D, P1W, P1M",
                "tables.prefix | my prefix | [A-Za-z0-9_.-]",
                "tables.shards | 0 | from 1 to 100",
                "tables.shards | 101 | from 1 to 100",
                "tables.shards | four | from 1 to 100",
                "tables.capacity.current | 1000 | W/R",
                "tables.capacity.previous | 0/100 | W,R >= 1",
                "rotation.lead | 15 minutes | ISO-8601 duration",
                "window.allowed-lateness | -PT5M | >= PT0S",
                "tables.zone | Mars/Olympus | zone id",
                "source | kafka | generator kinesis",
                "aws.region | US East | AWS region",
                "aws.endpoint | localhost:8000 | http(s) URL",
                "tables.billing | free | provisioned pay-per-request",
                "dynamodb.embedded | yes | true or false",
                "kinesis.stream-arn | readings | stream ARN",
                "tables.ttl | PT0S | positive",
                "generator.rate | -5 | > 0",
                "archive.path | archive/readings | filesystem URI",
                "archive.path | s3:relative | filesystem URI",
            })
    void badValueStopsWithOneLineNamingKeyValueAndWhatIsAccepted(String key, String value, String accepted) {
        assertThatThrownBy(() -> load("--" + key, value))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid configuration: " + key + " = '" + value + "': ")
                .hasMessageContaining(accepted)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"))
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo(key));
    }

    @Test
    void leadMustBeShorterThanThePeriod() {
        assertThatThrownBy(() -> load("--tables.period", "PT15M", "--rotation.lead", "PT15M"))
                .hasMessage(
                        "Invalid configuration: rotation.lead = 'PT15M': must be shorter than tables.period (PT15M)");
        assertThat(load("--tables.period", "PT15M", "--rotation.lead", "PT5M", "--window.allowed-lateness", "PT1M")
                        .get(ConfigKeys.ROTATION_LEAD))
                .isEqualTo(Duration.ofMinutes(5));
    }

    /** The defaults of the keys that must be shorter than the period follow a short period. */
    @Test
    void aShortPeriodAloneStartsWithLeadAndLatenessAQuarterOfIt() {
        PeriodTablesConfig quarterHour = load("--tables.period", "PT15M");
        assertThat(quarterHour.get(ConfigKeys.ROTATION_LEAD)).isEqualTo(Duration.parse("PT3M45S"));
        assertThat(quarterHour.get(ConfigKeys.ALLOWED_LATENESS)).isEqualTo(Duration.parse("PT3M45S"));
        PeriodTablesConfig minute = load("--tables.period", "PT1M");
        assertThat(minute.get(ConfigKeys.ROTATION_LEAD)).isEqualTo(Duration.ofSeconds(15));
        assertThat(minute.get(ConfigKeys.ALLOWED_LATENESS)).isEqualTo(Duration.ofSeconds(15));
        PeriodTablesConfig hour = load("--tables.period", "PT1H");
        assertThat(hour.get(ConfigKeys.ROTATION_LEAD)).isEqualTo(Duration.ofMinutes(15));
        assertThat(hour.get(ConfigKeys.ALLOWED_LATENESS)).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void allowedLatenessMustBeShorterThanThePeriod() {
        assertThatThrownBy(() ->
                        load("--tables.period", "PT1H", "--rotation.lead", "PT5M", "--window.allowed-lateness", "PT2H"))
                .hasMessageContaining("window.allowed-lateness = 'PT2H'");
    }

    @Test
    void kinesisSourceNeedsAStreamArn() {
        assertThatThrownBy(() -> load("--source", "kinesis")).hasMessageContaining("kinesis.stream-arn is required");
        assertThat(load(
                                "--source",
                                "kinesis",
                                "--kinesis.stream-arn",
                                "arn:aws:kinesis:us-east-1:123456789012:stream/readings")
                        .get(ConfigKeys.KINESIS_STREAM_ARN))
                .endsWith("stream/readings");
    }

    @Test
    void kinesisIdlenessMustOutlastTheShardDiscoveryInterval() {
        String arn = "arn:aws:kinesis:us-east-1:123456789012:stream/readings";
        assertThatThrownBy(
                        () -> load("--source", "kinesis", "--kinesis.stream-arn", arn, "--watermark.idleness", "PT5S"))
                .hasMessage("Invalid configuration: watermark.idleness = 'PT5S': must be at least PT20S when source"
                        + " = kinesis: the source lists a closed shard's children up to 10 s (its shard discovery"
                        + " interval) after the shard was read to its end, which holds its subtask's watermark for"
                        + " this long only; shorter, a lagging parent's children's readings go late");
        assertThat(load("--source", "kinesis", "--kinesis.stream-arn", arn, "--watermark.idleness", "PT20S")
                        .get(ConfigKeys.IDLENESS))
                .isEqualTo(Duration.ofSeconds(20));
        // The generator hands out its splits at once.
        assertThat(load("--watermark.idleness", "PT5S").get(ConfigKeys.IDLENESS))
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void atTimestampNeedsATimestamp() {
        assertThatThrownBy(() -> load("--kinesis.initial-position", "AT_TIMESTAMP"))
                .hasMessageContaining("kinesis.initial-timestamp is required");
    }

    @Test
    void archivePathIsAFileSystemUriWithoutTrailingSlash() {
        assertThat(load().find(ConfigKeys.ARCHIVE_PATH)).isEmpty();
        assertThat(load("--archive.path", "s3://bucket/readings/").get(ConfigKeys.ARCHIVE_PATH))
                .isEqualTo("s3://bucket/readings");
        assertThat(load("--archive.path", "s3://bucket").get(ConfigKeys.ARCHIVE_PATH))
                .isEqualTo("s3://bucket");
        assertThat(load("--archive.path", "file:///var/archive").get(ConfigKeys.ARCHIVE_PATH))
                .isEqualTo("file:///var/archive");
    }

    @Test
    void anArchiveNeedsLateReadingsInLateTables() {
        assertThatThrownBy(() -> load("--archive.path", "file:///var/archive", "--late.policy", "period-table"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "Invalid configuration: late.policy = 'period-table': must be late-table when archive.path is set");
    }

    @Test
    void rollupsNeedLateReadingsInLateTables() {
        assertThatThrownBy(() -> load("--rollups.every", "PT1M", "--late.policy", "period-table"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "Invalid configuration: late.policy = 'period-table': must be late-table when rollups.every is set");
    }

    @Test
    void retentionMustOutliveTheGrace() {
        assertThatThrownBy(() -> load("--tables.retention", "PT1M")).hasMessageContaining("tables.retention = 'PT1M'");
    }

    @Test
    void missingValueAndBareWordsAreRefused() {
        assertThatThrownBy(() -> load("--tables.shards")).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> load("tables.shards", "3")).hasMessageContaining("expected --key value");
    }

    @Test
    void unreadableConfigFileIsNamed() {
        assertThatThrownBy(() -> load("--config", "/nonexistent/job.properties"))
                .hasMessageContaining("/nonexistent/job.properties");
    }

    @Test
    void perServiceEndpointOverridesTheGeneralOne() {
        PeriodTablesConfig c =
                load("--aws.endpoint", "http://127.0.0.1:4566", "--dynamodb.endpoint", "http://127.0.0.1:8000");
        assertThat(c.dynamoDbEndpoint())
                .hasValueSatisfying(u -> assertThat(u.getPort()).isEqualTo(8000));
        assertThat(c.kinesisEndpoint())
                .hasValueSatisfying(u -> assertThat(u.getPort()).isEqualTo(4566));
        assertThat(c.startsEmbeddedDynamoDb()).isFalse();
    }

    @Test
    void onDemandBillingMakesEveryTierOnDemand() {
        PeriodTablesConfig c = load("--tables.billing", "PAY_PER_REQUEST");
        assertThat(c.effectiveCapacity(CapacityTier.CURRENT)).isEqualTo(Capacity.ON_DEMAND);
        assertThat(load("--tables.capacity.older", "on-demand")
                        .effectiveCapacity(CapacityTier.OLDER)
                        .onDemand())
                .isTrue();
    }

    @Test
    void describeMasksTheKmsKey() {
        String described =
                load("--tables.sse-kms-key", "arn:aws:kms:us-east-1:1:key/abc").describe();
        assertThat(described).contains("tables.sse-kms-key=****").doesNotContain("key/abc");
    }

    @Test
    void configSurvivesJavaSerialization() throws Exception {
        PeriodTablesConfig c = load("--tables.period", "PT1H", "--tables.shards", "4");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(c);
        }
        try (java.io.ObjectInputStream in =
                new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            PeriodTablesConfig copy = (PeriodTablesConfig) in.readObject();
            assertThat(copy.naming().periodTableOf(java.time.Instant.parse("2026-11-22T13:00:00Z")))
                    .isEqualTo("readings_2026-11-22T1300");
            assertThat(copy.get(TableKeys.TABLES_SHARDS)).isEqualTo(4);
        }
    }

    @Test
    void problemsNamesEveryUnknownKeyAndRefusedValueAndOtherwiseTheFailingRule() {
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("tables.shard", "4");
        bad.put("sink.max-in-flight", "0");
        bad.put("tables.period", "P2D");
        assertThat(ConfigLoader.problems(bad, false))
                .extracting(ConfigException::key)
                .containsExactly("tables.shard", "sink.max-in-flight", "tables.period");
        assertThat(ConfigLoader.problems(Map.of("rollups.every", "PT1M", "late.policy", "period-table"), false))
                .extracting(ConfigException::getMessage)
                .containsExactly("Invalid configuration: late.policy = 'period-table': must be late-table when"
                        + " rollups.every is set: a late reading written to its period table would be in the table"
                        + " but in no rollup, whose period has closed");
        assertThat(ConfigLoader.problems(Map.of("tables.shards", "4"), false)).isEmpty();
    }
}
