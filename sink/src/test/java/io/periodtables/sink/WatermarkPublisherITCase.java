package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.FaultKind;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * A writer's report of the end of its input stays in the writers table: the rotation's end of
 * input waits until every writer of the job has reported it.
 */
class WatermarkPublisherITCase {

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    /**
     * A writer starts reporting as it is created, asynchronously; a short input can end while that
     * start is still under way (a loaded machine, a restore with little input left). The start's
     * put says "nothing acknowledged yet": had it landed after the end's report, the rotation would
     * wait for this writer until its finish timeout (ReleaseSavepointITCase's silent 90 s in CI).
     */
    @Test
    void theEndOfInputReportedWhileTheStartIsUnderWayIsWhatTheTableKeeps() {
        DynamoDbFaults.reset();
        PeriodTablesConfig config = TestConfigs.hourly4Shards(
                "dynamodb.endpoint", DYNAMODB.endpoint().toString(), "tables.prefix", "publisher");
        String writersTable = config.naming().writersTable();
        // the start's put, the first put to the writers table, is answered only after the end is reported
        DynamoDbFaults.on("PutItem").table(writersTable).once().delay(Duration.ofSeconds(5));
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config)
                .withInterceptors(List.of(DynamoDbFaults.class))
                .newAsyncClient(2)) {
            WritersTable table = new WritersTable(client, config.naming());
            WritersTable.Writer writer = new WritersTable.Writer("period", "run-1", 0, 1, 0);
            Queue<Runnable> mailbox = new ConcurrentLinkedQueue<>();
            WatermarkPublisher publisher = new WatermarkPublisher(
                    table, writer, config.calendar(), Duration.ofMinutes(5), Clock.systemUTC(), mailbox::add);

            publisher.start();
            await("the start's put sent and held")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> DynamoDbFaults.injected("PutItem", FaultKind.DELAY) == 1);
            publisher.publishNow(Long.MAX_VALUE);
            await("the start's put answered")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> DynamoDbFaults.requests().stream()
                            .anyMatch(r ->
                                    r.operation().equals("PutItem") && r.fault().equals(Optional.of(FaultKind.DELAY))));
            mailbox.forEach(Runnable::run);

            assertThat(table.acknowledged("period", "run-1", 0).join())
                    .as("the writer's acknowledged watermark in %s: %s", writersTable, DynamoDbFaults.requests())
                    .isEqualTo(OptionalLong.of(Long.MAX_VALUE));
        }
    }
}
