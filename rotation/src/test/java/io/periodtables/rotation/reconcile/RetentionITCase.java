package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.CallLog;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.RetentionGate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.YearMonth;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Tag;

/** Retention against dynalite behind the fidelity layer, which keeps the tags given at CreateTable. */
class RetentionITCase {
    private static final Instant NOW = Instant.parse("2030-03-10T12:30:00Z");
    private static Dynalite local;
    private static DynamoDbAsyncClient client;

    @BeforeAll
    static void startDynamoDbLocal() {
        local = TestSetup.dynamoDb();
        client = TestSetup.clients(TestSetup.config(local.endpoint())).newAsyncClient(8);
    }

    @AfterAll
    static void closeClient() {
        client.close();
    }

    @BeforeEach
    void forgetCalls() {
        CallLog.reset();
    }

    private static TableManager manager(PeriodTablesConfig config) {
        return new TableManager(config, client, TestSetup.fastSettings(), Clock.systemUTC());
    }

    private static PeriodTablesConfig hourly(String... more) {
        String[] base = {"tables.prefix", TestSetup.uniquePrefix("ret"), "tables.period", "PT1H", "tables.ttl", "P30D"};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return TestSetup.config(local.endpoint(), all);
    }

    @Test
    void retentionDeletesOnlyOurTaggedExpiredTables() throws Exception {
        PeriodTablesConfig config = hourly("tables.retention", "PT6H");
        PeriodTablesConfig protectedConfig =
                config.with(io.periodtables.core.config.TableKeys.TABLES_DELETION_PROTECTION, "true");
        TableNaming naming = config.naming();
        Period current = config.calendar().periodOf(NOW);
        Period expired1 = config.calendar().periodOf(NOW.minusSeconds(10 * 3600));
        Period expired2 = config.calendar().periodOf(NOW.minusSeconds(8 * 3600));
        Period expiredProtected = config.calendar().periodOf(NOW.minusSeconds(9 * 3600));
        Period expiredForeign = config.calendar().periodOf(NOW.minusSeconds(11 * 3600));
        Period kept = config.calendar().periodOf(NOW.minusSeconds(6 * 3600)); // ended 5.5 h ago
        Period next = config.calendar().next(current);
        YearMonth oldMonth = YearMonth.of(2030, 1);
        try (TableManager manager = manager(config);
                TableManager protectedManager = manager(protectedConfig);
                ReconcilerHarness rotation = new ReconcilerHarness(config, NOW)) {
            CompletableFuture.allOf(
                            manager.ensure(expired1),
                            manager.ensure(expired2),
                            manager.ensure(kept),
                            manager.ensure(current),
                            manager.ensure(next),
                            manager.ensureLateTable(oldMonth),
                            manager.ensureLateTable(YearMonth.of(2030, 3)),
                            manager.ensureRejectedTable(),
                            protectedManager.ensure(expiredProtected))
                    .join();
            createUntagged(naming.periodTable(expiredForeign));
            createUntagged("other_" + expired1.label());

            rotation.watermark(NOW).tick();

            assertThat(rotation.events)
                    .filteredOn(e -> e.kind() == RotationEvent.Kind.TABLE_DELETED)
                    .extracting(RotationEvent::table)
                    .containsExactlyInAnyOrder(
                            naming.periodTable(expired1),
                            naming.periodTable(expired2),
                            naming.prefix() + "_late_2030-01");
            assertThat(rotation.events)
                    .filteredOn(e -> e.kind() == RotationEvent.Kind.DELETION_PROTECTED)
                    .extracting(RotationEvent::table)
                    .containsExactly(naming.periodTable(expiredProtected));
            TestSetup.awaitGone(
                    local, deleted(rotation).toArray(String[]::new)); // DynamoDB lists a deleted table while DELETING
            assertThat(TestSetup.tableNames(local, naming.prefix()))
                    .containsExactlyInAnyOrder(
                            naming.periodTable(kept),
                            naming.periodTable(current),
                            naming.periodTable(next),
                            naming.periodTable(expiredProtected),
                            naming.periodTable(expiredForeign),
                            naming.prefix() + "_late_2030-03",
                            naming.rejectedTable());
            assertThat(TestSetup.tableNames(local, "other")).contains("other_" + expired1.label());
            assertThat(CallLog.tablesOf("DeleteTable"))
                    .as("each expired table of ours asked once")
                    .containsExactlyInAnyOrder(
                            naming.periodTable(expired1),
                            naming.periodTable(expired2),
                            naming.prefix() + "_late_2030-01");
        }
    }

    @Test
    void retentionNeverDeletesWhenTagsCannotBeRead() throws Exception {
        PeriodTablesConfig config = hourly("tables.retention", "PT6H");
        Period expired = config.calendar().periodOf(NOW.minusSeconds(10 * 3600));
        String name = config.naming().periodTable(expired);
        try (TableManager manager = manager(config)) {
            manager.ensure(expired).join();
        }
        try (DynamoDbClient byHand = local.syncClient()) { // someone removed our tags
            String arn = byHand.describeTable(b -> b.tableName(name)).table().tableArn();
            List<String> keys = byHand.listTagsOfResource(b -> b.resourceArn(arn)).tags().stream()
                    .map(Tag::key)
                    .toList();
            byHand.untagResource(b -> b.resourceArn(arn).tagKeys(keys));
        }

        try (ReconcilerHarness rotation = new ReconcilerHarness(config, NOW)) {
            rotation.watermark(NOW).tick();
            assertThat(TestSetup.tableNames(local, config.naming().prefix())).contains(name);
            assertThat(rotation.events).noneMatch(e -> e.kind() == RotationEvent.Kind.TABLE_DELETED);
        }
    }

    @Test
    void withoutConfiguredRetentionNothingIsDeleted() throws Exception {
        PeriodTablesConfig config = hourly();
        Period old = config.calendar().periodOf(NOW.minusSeconds(100 * 3600));
        try (TableManager manager = manager(config)) {
            manager.ensure(old).join();
        }
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, NOW)) {
            rotation.watermark(NOW).tick();
            assertThat(TestSetup.tableNames(local, config.naming().prefix()))
                    .contains(config.naming().periodTable(old));
            assertThat(CallLog.tablesOf("DeleteTable")).isEmpty();
        }
    }

    @Test
    void withAnArchiveRetentionDeletesExactlyTheArchivedPeriods(@TempDir Path archive) throws Exception {
        PeriodTablesConfig config = hourly("tables.retention", "PT6H");
        TableNaming naming = config.naming();
        Period archived = config.calendar().periodOf(NOW.minusSeconds(10 * 3600));
        Period notYet = config.calendar().periodOf(NOW.minusSeconds(9 * 3600));
        Period unreadable = config.calendar().periodOf(NOW.minusSeconds(8 * 3600));
        Period february = config.calendar().periodOf(Instant.parse("2030-02-01T00:00:00Z"));
        String lateJanuary = naming.prefix() + "_late_2030-01";
        try (TableManager manager = manager(config)) {
            CompletableFuture.allOf(
                            manager.ensure(archived),
                            manager.ensure(notYet),
                            manager.ensure(unreadable),
                            manager.ensureLateTable(YearMonth.of(2030, 1)))
                    .join();
        }
        MarkerFiles gate = new MarkerFiles(archive.toString());
        gate.write(archived);
        Files.createDirectories(gate.marker(unreadable)); // a marker that cannot be read: not archived

        try (ReconcilerHarness rotation = new ReconcilerHarness(config, NOW, gate)) {
            rotation.watermark(NOW).tick();
            assertThat(deleted(rotation)).containsExactly(naming.periodTable(archived));
            assertThat(TestSetup.tableNames(local, naming.prefix()))
                    .contains(naming.periodTable(notYet), naming.periodTable(unreadable), lateJanuary);

            gate.write(notYet);
            gate.write(february); // every late row of January is in the archive once this period's marker exists
            rotation.tick();
            assertThat(deleted(rotation))
                    .containsExactlyInAnyOrder(naming.periodTable(archived), naming.periodTable(notYet), lateJanuary);
            TestSetup.awaitGone(
                    local, deleted(rotation).toArray(String[]::new)); // DynamoDB lists a deleted table while DELETING
            assertThat(TestSetup.tableNames(local, naming.prefix())).containsExactly(naming.periodTable(unreadable));
            assertThat(CallLog.tablesOf("DeleteTable")).doesNotContain(naming.periodTable(unreadable));
        }
    }

    private static java.util.List<String> deleted(ReconcilerHarness rotation) {
        return rotation.events.stream()
                .filter(e -> e.kind() == RotationEvent.Kind.TABLE_DELETED)
                .map(RotationEvent::table)
                .toList();
    }

    /** A gate over marker files {@code <root>/<period label>/_SUCCESS}, read through java.nio. */
    private record MarkerFiles(String root) implements RetentionGate {
        Path marker(Period period) {
            return Path.of(root, period.label(), "_SUCCESS");
        }

        void write(Period period) throws IOException {
            Files.createDirectories(marker(period).getParent());
            Files.writeString(marker(period), "{}");
        }

        @Override
        public boolean archived(Period period) throws IOException {
            return Files.exists(marker(period))
                    && Files.readString(marker(period)).startsWith("{");
        }

        @Override
        public String where(Period period) {
            return marker(period).toString();
        }
    }

    private static void createUntagged(String name) {
        try (DynamoDbClient client = local.syncClient()) {
            client.createTable(b -> b.tableName(name)
                    .keySchema(
                            KeySchemaElement.builder()
                                    .attributeName("pk")
                                    .keyType(KeyType.HASH)
                                    .build(),
                            KeySchemaElement.builder()
                                    .attributeName("sk")
                                    .keyType(KeyType.RANGE)
                                    .build())
                    .attributeDefinitions(
                            a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                            a -> a.attributeName("sk").attributeType(ScalarAttributeType.S))
                    .billingMode(BillingMode.PAY_PER_REQUEST));
        }
    }
}
