package io.periodtables.rotation.operator;

import static io.periodtables.rotation.RotationTestBed.GATE;
import static io.periodtables.rotation.RotationTestBed.T0;
import static io.periodtables.rotation.RotationTestBed.capacities;
import static io.periodtables.rotation.RotationTestBed.config;
import static io.periodtables.rotation.RotationTestBed.run;
import static io.periodtables.rotation.RotationTestBed.tableAt;
import static io.periodtables.rotation.RotationTestBed.timestamps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.CallLog;
import io.periodtables.rotation.RotationTestBed;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.controlplane.TableSchemaMismatchException;
import io.periodtables.rotation.reconcile.RotationEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/** The rotation operator on a MiniCluster against dynalite, driven by event time only. */
class RotationOperatorITCase {
    private static final Capacity CURRENT = Capacity.provisioned(1000, 300);
    private static final Capacity PREVIOUS = Capacity.provisioned(1, 100);
    private static final Capacity OLDER = Capacity.provisioned(1, 1);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = RotationTestBed.miniCluster();

    private final Dynalite local = TestSetup.dynamoDb();

    @BeforeEach
    void reset() {
        RotationTestBed.reset();
    }

    @Test
    void eachNextTableIsReadyBeforeItsPeriodBeginsAndClosedTablesEndAtTheirTier() throws Exception {
        PeriodTablesConfig config = config();
        // One reading every 5 s of event time from 10:00:00 to 10:04:40: five periods, and the
        // watermark ends inside the lead of the sixth. Before the first reading of a period,
        // the source waits (bounded) until the rotation reported that period's table ready, as
        // the lead would let it in real time; the watermark cannot pass the period start meanwhile.
        List<RotationEvent> events = run(config, new RotationTestBed.Readings(timestamps(0, 57, 5), config.naming()));

        List<String> tables = new ArrayList<>();
        for (int minute = 0; minute <= 5; minute++) {
            tables.add(tableAt(config, 60L * minute));
        }
        for (String next : tables.subList(1, 6)) {
            RotationEvent ready = readyEvent(events, next);
            assertThat(ready.detail()).isEqualTo("created");
            assertThat(ready.leadMillis()).as("lead of %s", next).isPositive();
        }
        assertThat(GATE)
                .as("tables the first reading of each period found")
                .containsExactly(
                        tables.get(1) + " found",
                        tables.get(2) + " found",
                        tables.get(3) + " found",
                        tables.get(4) + " found");
        // Final watermark 10:04:40: 10:00-10:02 are older, 10:03 previous, 10:04 and 10:05 current.
        assertThat(capacities(tables)).containsExactly(OLDER, OLDER, OLDER, PREVIOUS, CURRENT, CURRENT);
        assertThat(tables).allSatisfy(t -> assertThat(ttlStatus(t)).isEqualTo(TimeToLiveStatus.ENABLED));
        // Each closed table is lowered at most twice (previous, then older), the open ones never.
        assertThat(CallLog.tablesOf("UpdateTable"))
                .isSubsetOf(tables.subList(0, 4))
                .allSatisfy(t -> assertThat(CallLog.tablesOf("UpdateTable"))
                        .filteredOn(t::equals)
                        .hasSizeLessThanOrEqualTo(2));
        assertThat(events).noneMatch(e -> e.kind() == RotationEvent.Kind.FAILED);
        // Only the tables of event time: none for the wall clock's period (the run is years behind it).
        assertThat(TestSetup.tableNames(local, config.naming().prefix())).containsExactlyInAnyOrderElementsOf(tables);
    }

    @Test
    void aBacklogRacingForwardRollsEveryTableToItsTier() throws Exception {
        PeriodTablesConfig config = config();
        // 10:07 is jumped over by the watermark; its table exists (as if the sink's fallback made it).
        String jumpedOver = tableAt(config, 420);
        try (TableManager manager = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            manager.ensureTable(jumpedOver).join(); // at the current tier, as the sink's fallback created them
        }
        // No waiting: 10:00:00-10:00:50, then jumps to 10:03:10, 10:03:50, 10:04:50, 10:09:30, 10:09:45.
        List<Long> times = new ArrayList<>(timestamps(0, 6, 10));
        for (long second : new long[] {190, 230, 290, 570, 585}) {
            times.add(T0.plusSeconds(second).toEpochMilli());
        }
        List<RotationEvent> events = run(config, new RotationTestBed.Readings(times, null));

        List<String> older = List.of(
                tableAt(config, 0),
                tableAt(config, 60),
                tableAt(config, 180),
                tableAt(config, 240),
                tableAt(config, 300),
                jumpedOver);
        assertThat(capacities(older)).containsOnly(OLDER);
        assertThat(capacities(List.of(tableAt(config, 540), tableAt(config, 600))))
                .containsOnly(CURRENT);
        assertThat(events).noneMatch(e -> e.kind() == RotationEvent.Kind.FAILED);
        assertThat(TestSetup.tableNames(local, config.naming().prefix()))
                .as("jumped-over periods get no table")
                .doesNotContain(tableAt(config, 360), tableAt(config, 480));
    }

    @Test
    void retentionAtTheRolloverDeletesOnlyExpiredTables() throws Exception {
        PeriodTablesConfig config = config(TableKeys.TABLES_RETENTION.name(), "PT3M");
        String expired = tableAt(config, -600);
        String kept = tableAt(config, -120);
        try (TableManager manager = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            manager.ensureTable(expired).join();
            manager.ensureTable(kept).join();
        }

        List<RotationEvent> events = run(config, new RotationTestBed.Readings(timestamps(0, 8, 10), null));

        assertThat(events)
                .filteredOn(e -> e.kind() == RotationEvent.Kind.TABLE_DELETED)
                .extracting(RotationEvent::table)
                .containsExactly(expired);
        TestSetup.awaitGone(local, expired); // DynamoDB lists a deleted table while DELETING
        assertThat(TestSetup.tableNames(local, config.naming().prefix()))
                .doesNotContain(expired)
                .contains(kept, tableAt(config, 0));
    }

    @Test
    void aTableOfOurNameWithAnotherKeySchemaFailsTheJobWithAClearMessage() {
        PeriodTablesConfig config = config();
        String clash = tableAt(config, 0);
        try (DynamoDbClient client = local.syncClient()) {
            client.createTable(b -> b.tableName(clash)
                    .keySchema(KeySchemaElement.builder()
                            .attributeName("id")
                            .keyType(KeyType.HASH)
                            .build())
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                    .billingMode(BillingMode.PAY_PER_REQUEST));
        }

        assertThatThrownBy(() -> run(config, new RotationTestBed.Readings(timestamps(0, 3, 10), null)))
                .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, TableSchemaMismatchException.class))
                        .hasValueSatisfying(m -> assertThat(m)
                                .hasMessageContaining("'" + clash + "'")
                                .hasMessageContaining("pk (S, HASH) and sk (S, RANGE)")));
    }

    private static RotationEvent readyEvent(List<RotationEvent> events, String table) {
        return events.stream()
                .filter(e ->
                        e.kind() == RotationEvent.Kind.TABLE_READY && e.table().equals(table))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no TABLE_READY for " + table + " in " + events));
    }

    private TimeToLiveStatus ttlStatus(String table) {
        try (DynamoDbClient client = local.syncClient()) {
            return client.describeTimeToLive(b -> b.tableName(table))
                    .timeToLiveDescription()
                    .timeToLiveStatus();
        }
    }
}
