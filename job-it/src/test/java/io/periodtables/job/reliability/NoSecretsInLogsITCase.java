package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.job.PeriodTablesJob;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Security: the job's logs never contain credentials. The job's own main runs the production
 * topology (synthetic fleet, bounded) against dynalite reached through a non-emulator
 * address, so its clients sign every request with credentials from the SDK's default chain,
 * here the {@code aws.accessKeyId}/{@code aws.secretAccessKey}/{@code aws.sessionToken} system
 * properties; throttling, server errors and resets are injected so that the retry and warning
 * paths log too. Every log event of the JVM is captured at the jar's levels (our loggers at
 * DEBUG) and searched for the three values.
 */
class NoSecretsInLogsITCase {
    private static final String ACCESS_KEY = "AKIAPERIODTABLESTEST7";
    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPERIODTABLESSECRET";
    private static final String TOKEN = "FwoGZXIvYXdzEPERIODTABLESSESSIONTOKEN//////////wEaDH";
    private static final List<String> PROPERTIES =
            List.of("aws.accessKeyId", "aws.secretAccessKey", "aws.sessionToken");

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;
    private final Map<String, String> saved = new HashMap<>();

    @BeforeAll
    static void startDynamoDb() {
        dynamoDb = DYNAMODB.emulator();
    }

    @AfterAll
    static void stopDynamoDb() {}

    @BeforeEach
    void credentialsInSystemProperties() {
        DynamoDbFaults.reset();
        PROPERTIES.forEach(key -> saved.put(key, System.getProperty(key)));
        System.setProperty("aws.accessKeyId", ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", SECRET);
        System.setProperty("aws.sessionToken", TOKEN);
    }

    @AfterEach
    void restoreSystemProperties() {
        DynamoDbFaults.reset();
        saved.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
    }

    @Test
    void aRunWithRetriesAndWarningsLogsNoCredential() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(4).throttle();
        DynamoDbFaults.on("BatchWriteItem").every(6).internalServerError();
        DynamoDbFaults.on("BatchWriteItem").every(9).connectionReset();
        String log;
        try (LoopbackForwarder forwarder = new LoopbackForwarder(dynamoDb.endpoint());
                LogCapture capture = new LogCapture()) {
            PeriodTablesJob.main(new String[] {
                "--dynamodb.endpoint", forwarder.endpoint().toString(),
                "--tables.prefix", "rel_secrets",
                "--tables.period", "PT1H",
                "--generator.devices", "6",
                "--generator.count", "120",
                "--generator.rate", "1000",
                "--generator.speedup", "36000",
                "--generator.start", "2025-06-01T08:00:00Z"
            });
            log = capture.text();
        }

        assertThat(DynamoDbFaults.injected(
                        "BatchWriteItem", io.periodtables.emulators.FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED))
                .isPositive();
        assertThat(storedReadings())
                .as("the run signed its requests with these credentials and wrote every reading")
                .isEqualTo(120);
        assertThat(log)
                .as("the capture saw the run")
                .contains("period-tables configuration")
                .contains("rel_secrets");
        assertThat(log).doesNotContain(SECRET).doesNotContain(ACCESS_KEY).doesNotContain(TOKEN);
    }

    @Test
    void aSecretGivenAsAnUnknownKeyIsNotEchoedInTheErrorOrTheLog() {
        String log;
        try (LogCapture capture = new LogCapture()) {
            assertThatThrownBy(() -> PeriodTablesJob.main(new String[] {"--aws.secret-access-key", SECRET}))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("aws.secret-access-key")
                    .hasMessageNotContaining(SECRET);
            log = capture.text();
        }
        assertThat(log).contains("aws.secret-access-key").doesNotContain(SECRET);
    }

    @Test
    void theLoggedConfigurationMasksSecretLookingValues() {
        String described = ConfigLoader.fromMap(
                        Map.of("tables.sse-kms-key", "arn:aws:kms:us-east-1:123456789012:key/" + SECRET), false)
                .describe();

        assertThat(described).contains("tables.sse-kms-key=****").doesNotContain(SECRET);
    }

    private static int storedReadings() {
        TableNaming naming = ConfigLoader.fromMap(
                        Map.of("tables.prefix", "rel_secrets", "tables.period", "PT1H"), false)
                .naming();
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            return client.listTablesPaginator().tableNames().stream()
                    .filter(t -> naming.parse(t)
                            .filter(ref -> ref.kind() == TableNaming.TableRef.Kind.PERIOD)
                            .isPresent())
                    .mapToInt(t ->
                            client.scan(b -> b.tableName(t).select("COUNT")).count())
                    .sum();
        }
    }
}
