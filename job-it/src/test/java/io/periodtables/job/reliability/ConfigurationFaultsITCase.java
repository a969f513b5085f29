package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.rotation.controlplane.TableSchemaMismatchException;
import io.periodtables.sink.PeriodTableSinkException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.retry.backoff.FixedDelayBackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Configuration faults: DynamoDB unreachable, a DynamoDB that never answers, no credentials, and
 * a table with the job's name but another key schema. Each must stop the job with an error that
 * says what is wrong, within a bound ({@code sink.max-attempts}), and write nothing anywhere.
 */
class ConfigurationFaultsITCase {
    /** Far beyond what a failing run takes; reaching it means the job hangs. */
    private static final Duration HANG = Duration.ofSeconds(90);

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;

    @BeforeAll
    static void startDynamoDb() {
        dynamoDb = DYNAMODB.emulator();
    }

    @AfterAll
    static void stopDynamoDb() {}

    @BeforeEach
    void clearFaults() {
        DynamoDbFaults.reset();
    }

    private static TestInput someReadings() {
        TestInput input = new TestInput();
        for (int i = 0; i < 30; i++) {
            input.reading("dev-" + (i % 3), Fleet.T0.plus(Duration.ofMinutes(2L * i)), "\"temp\":" + i);
        }
        return input.json("not json");
    }

    @Test
    void unreachableDynamoDbFailsTheJobAfterSinkMaxAttemptsNamingTheError() throws Exception {
        PeriodTablesConfig config =
                ReliabilityRun.config(URI.create("http://127.0.0.1:1"), "rel_unreachable", "sink.max-attempts", "3");

        Throwable failure = failureOf(config);

        assertThat(sinkError(failure))
                .contains("failed 3 attempts (sink.max-attempts=3)")
                .containsIgnoringCase("connect");
        assertNothingWritten("rel_unreachable");
    }

    @Test
    void dynamoDbThatNeverAnswersFailsTheJobAfterSinkMaxAttemptsOfTheRequestTimeout() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            PeriodTablesConfig config = ReliabilityRun.config(
                    hole.endpoint(), "rel_black_hole", "sink.max-attempts", "3", "sink.request-timeout", "PT0.5S");

            Throwable failure = failureOf(config);

            assertThat(sinkError(failure))
                    .contains("failed 3 attempts (sink.max-attempts=3)")
                    .containsIgnoringCase("timed out");
        }
        assertNothingWritten("rel_black_hole");
    }

    /**
     * An endpoint that is not this machine's loopback name gets the SDK's default credential
     * chain; with nothing in it, the job stops and says so. (127.0.0.2 is loopback to the
     * network, not to period-tables' emulator rule, and nothing listens there.)
     */
    @Test
    void missingCredentialsFailTheJobWithTheSdkMessage() throws Exception {
        Map<String, String> saved = new HashMap<>();
        for (String key : List.of(
                "aws.accessKeyId",
                "aws.secretAccessKey",
                "aws.sessionToken",
                "aws.sharedCredentialsFile",
                "aws.configFile",
                "aws.disableEc2Metadata")) {
            saved.put(key, System.getProperty(key));
            System.clearProperty(key);
        }
        try {
            System.setProperty("aws.sharedCredentialsFile", "/nonexistent/period-tables/credentials");
            System.setProperty("aws.configFile", "/nonexistent/period-tables/config");
            System.setProperty("aws.disableEc2Metadata", "true");
            PeriodTablesConfig config = ReliabilityRun.config(
                    URI.create("http://127.0.0.2:1"), "rel_no_credentials", "sink.max-attempts", "3");

            Throwable failure = failureOf(config);

            assertThat(sinkError(failure)).contains("failed 3 attempts").contains("Unable to load credentials");
        } finally {
            saved.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
        assertNothingWritten("rel_no_credentials");
    }

    @Test
    void tableWithTheJobsNameButAnotherKeySchemaStopsTheJobAndNothingIsWritten() throws Exception {
        PeriodTablesConfig config = ReliabilityRun.config(dynamoDb.endpoint(), "rel_schema");
        String foreign = config.naming().periodTableOf(Fleet.T0);
        Map<String, AttributeValue> theirItem =
                Map.of("id", AttributeValue.fromS("theirs"), "v", AttributeValue.fromN("1"));
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            client.createTable(b -> b.tableName(foreign)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S)));
            client.waiter() // DynamoDB answers items of a CREATING table "not found"
                    .waitUntilTableExists(
                            b -> b.tableName(foreign),
                            o -> o.backoffStrategy(FixedDelayBackoffStrategy.create(Duration.ofMillis(50))));
            client.putItem(b -> b.tableName(foreign).item(theirItem));
        }

        Throwable failure = failureOf(config);

        // The rotation (DescribeTable) or the sink (the write's ValidationException) notices first.
        Optional<Throwable> rotation = ExceptionUtils.findThrowable(failure, TableSchemaMismatchException.class)
                .map(Throwable.class::cast);
        Optional<Throwable> sink = ExceptionUtils.findThrowable(failure, PeriodTableSinkException.class)
                .filter(e -> e.getMessage().contains("key schema"))
                .map(Throwable.class::cast);
        assertThat(rotation.or(() -> sink))
                .as("the job fails with the schema mismatch, not %s", failure)
                .hasValueSatisfying(
                        e -> assertThat(e.getMessage()).contains(foreign).contains("pk (S, HASH) and sk (S, RANGE)"));
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            assertThat(client.scan(b -> b.tableName(foreign)).items())
                    .as("their table is untouched")
                    .containsExactly(theirItem);
        }
        List<String> withItems = new ArrayList<>();
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            client.listTablesPaginator().tableNames().stream()
                    .filter(t -> config.naming().parse(t).isPresent() && !t.equals(foreign))
                    // a table the job asked for just before it failed may still be CREATING
                    .peek(t -> client.waiter()
                            .waitUntilTableExists(
                                    b -> b.tableName(t),
                                    o -> o.backoffStrategy(FixedDelayBackoffStrategy.create(Duration.ofMillis(50)))))
                    .filter(t -> client.scan(b -> b.tableName(t).limit(1)).count() > 0)
                    .forEach(withItems::add);
        }
        assertThat(withItems).as("tables of the prefix with items").isEmpty();
    }

    /** Runs the job on {@link #someReadings()} and returns why it failed; fails the test if it does not, or hangs. */
    private static Throwable failureOf(PeriodTablesConfig config) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        TestSource.build(env, config, someReadings(), new TestSource.Hooks());
        JobClient job = env.executeAsync("reliability " + config.naming().prefix());
        Instant start = Instant.now();
        try {
            job.getJobExecutionResult().get(HANG.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException hang) {
            job.cancel().get(30, TimeUnit.SECONDS);
            fail("the job neither failed nor finished within " + HANG);
        } catch (Exception failed) {
            return failed;
        }
        return fail("the job finished after %s although it cannot write", Duration.between(start, Instant.now()));
    }

    private static String sinkError(Throwable failure) {
        return ExceptionUtils.findThrowable(failure, PeriodTableSinkException.class)
                .map(Throwable::getMessage)
                .orElseThrow(() -> new AssertionError("the job failed, but not in the sink", failure));
    }

    private static void assertNothingWritten(String prefix) {
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            assertThat(client.listTablesPaginator().tableNames().stream().filter(t -> t.startsWith(prefix + "_")))
                    .as("tables of %s on the DynamoDB that is there", prefix)
                    .isEmpty();
        }
    }

    /** A TCP endpoint that accepts connections and never answers. */
    private static final class BlackHole implements AutoCloseable {
        private final ServerSocket socket;
        private final List<Socket> accepted = new ArrayList<>();
        private final Thread acceptor;

        BlackHole() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = new Thread(
                    () -> {
                        try {
                            while (!socket.isClosed()) {
                                Socket s = socket.accept();
                                synchronized (accepted) {
                                    accepted.add(s);
                                }
                            }
                        } catch (IOException closed) {
                            // closed by close()
                        }
                    },
                    "black-hole-endpoint");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (accepted) {
                for (Socket s : accepted) {
                    s.close();
                }
            }
        }
    }
}
