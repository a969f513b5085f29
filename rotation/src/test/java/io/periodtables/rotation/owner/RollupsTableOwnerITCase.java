package io.periodtables.rotation.owner;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.owner.MissingTableHandler.Arrival;
import io.periodtables.core.owner.MissingTableHandler.Verdict;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.model.RejectReason;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.controlplane.TableManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The sink's question about a missing rollups table: the table owner creates one only where its
 * period table is or would be created, never on a rollup's word alone. A rollup of a period
 * whose tables retention deleted (restored from an old savepoint) goes to the rejected table; one
 * whose period table the period sink creates a moment later gets its rollups table.
 */
class RollupsTableOwnerITCase {

    @Test
    void aRollupsTableIsCreatedWithItsPeriodTableAndNotForAPeriodWithoutTables() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        String prefix = TestSetup.uniquePrefix("rollowner");
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(), "tables.prefix", prefix, "tables.period", "PT1H", "rollups.every", "PT15M");
        Instant now = Instant.parse("2030-03-10T12:30:00Z");
        Period deleted = config.calendar().periodOf(Instant.parse("2030-03-10T09:00:00Z"));
        Period kept = config.calendar().periodOf(Instant.parse("2030-03-10T10:00:00Z"));
        Period open = config.calendar().periodOf(now);
        Period racing = config.calendar().periodOf(Instant.parse("2030-03-10T08:00:00Z"));
        try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(4);
                TableManager manager =
                        new TableManager(config, client, TestSetup.fastSettings(), Clock.fixed(now, ZoneOffset.UTC))) {
            manager.ensure(kept, Capacity.provisioned(1, 1)).join();
            manager.ensure(open, Capacity.provisioned(5, 5)).join();
            TableOwner owner = new TableOwner(manager, config, Clock.fixed(now, ZoneOffset.UTC), Duration.ofSeconds(5));

            // The period sink creates the closed period's table a moment after the rollups sink asks
            // (the two sinks flush on their own; a CI run of 429ad33 rejected such a rollup).
            CompletableFuture<Verdict> raced =
                    owner.ensureTable(config.naming().rollupsTable(racing), Arrival.UNKNOWN, now.toEpochMilli());
            CompletableFuture.runAsync(
                            () -> manager.ensure(racing, Capacity.provisioned(1, 1))
                                    .join(),
                            CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS))
                    .join();
            assertThat(raced.join().kind())
                    .as("a closed period whose table the period sink creates a moment later: %s", raced.join())
                    .isEqualTo(Verdict.Kind.CREATED);

            Verdict retired = owner.ensureTable(
                            config.naming().rollupsTable(deleted), Arrival.UNKNOWN, now.toEpochMilli())
                    .join();
            assertThat(retired.kind()).isEqualTo(Verdict.Kind.REJECTED);
            assertThat(retired.reason()).isEqualTo(RejectReason.PERIOD_CLOSED);

            assertThat(owner.ensureTable(config.naming().rollupsTable(kept), Arrival.UNKNOWN, now.toEpochMilli())
                            .join()
                            .kind())
                    .as("a closed period whose table is there")
                    .isEqualTo(Verdict.Kind.CREATED);
            assertThat(owner.ensureTable(config.naming().rollupsTable(open), Arrival.UNKNOWN, now.toEpochMilli())
                            .join()
                            .kind())
                    .isEqualTo(Verdict.Kind.CREATED);
            assertThat(TestSetup.tableNames(local, prefix))
                    .as("tables of the prefix")
                    .containsExactlyInAnyOrder(
                            config.naming().periodTable(kept),
                            config.naming().rollupsTable(kept),
                            config.naming().periodTable(open),
                            config.naming().rollupsTable(open),
                            config.naming().periodTable(racing),
                            config.naming().rollupsTable(racing));
        }
    }
}
