package io.periodtables.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.model.Reading;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/** The e2e bench's SDK ceiling writes every reading, and a failure ends it with DynamoDB's error. */
class RawBatchLoopTest {

    private static Dynalite dynamoDb;
    private static DynamoDbClient admin;

    @BeforeAll
    static void start() {
        dynamoDb = Tables.dynamoDb();
        admin = dynamoDb.syncClient();
    }

    @AfterAll
    static void stop() {
        admin.close();
        dynamoDb.close();
    }

    private static PeriodTablesConfig config(String prefix, int n) {
        Instant start = BenchConfigs.fleetStart(4);
        return BenchConfigs.load(
                BenchConfigs.fleet(prefix, dynamoDb.endpoint(), n, 100, start, Duration.ofMinutes(150)));
    }

    private static Reading[] readings(PeriodTablesConfig config, int n) {
        return new FleetReadings(config, BenchConfigs.fleetStart(4)).readings(n);
    }

    @Test
    void writesEveryReadingWithRequestsInFlight() throws Exception {
        int n = 2_000;
        PeriodTablesConfig config = config("rawok", n);
        Tables.create(admin, "rawok_raw");

        RawBatchLoop.write(config, "rawok_raw", readings(config, n), 8);

        assertThat(Tables.countWithPrefix(admin, "rawok")).isEqualTo(n);
    }

    @Test
    void aTableThatFailsEveryRequestEndsTheLoopWithDynamoDbsError() {
        int n = 2_000;
        PeriodTablesConfig config = config("rawmissing", n);

        assertThatThrownBy(() -> RawBatchLoop.write(config, "rawmissing_raw", readings(config, n), 4))
                .hasMessage("raw BatchWriteItem loop failed")
                .hasRootCauseInstanceOf(ResourceNotFoundException.class);
    }
}
