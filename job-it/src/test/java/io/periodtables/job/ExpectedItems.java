package io.periodtables.job;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.job.reliability.ExpectedTables;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The items a test expects, built from DESIGN.md's rules with the core's {@link WriteSharding}
 * and {@code TableNaming} (never with the sink's item code): period items by table, late items
 * (whatever the write month), and rejected items without their message and arrival time, which
 * are for humans and differ from run to run. Items are in {@link TableContents#canonical} form,
 * keyed by [pk, sk]; a later expectation for the same key replaces the earlier one.
 */
final class ExpectedItems {
    private final PeriodTablesConfig config;
    private final Map<String, Map<List<String>, Map<String, AttributeValue>>> period = TableContents.byTable();
    private final Map<List<String>, Map<String, AttributeValue>> late = new HashMap<>();
    private final Map<List<String>, Map<String, AttributeValue>> rejected = new HashMap<>();

    ExpectedItems(PeriodTablesConfig config) {
        this.config = config;
    }

    /** A reading in the table of its period; {@code canonicalPayload} as the parser writes it (keys sorted). */
    void period(
            String device, Instant t, String eventId, String canonicalPayload, Map<String, AttributeValue> payload) {
        period.computeIfAbsent(config.naming().periodTableOf(t), table -> new HashMap<>())
                .putAll(keyed(readingItem(device, t, eventId, canonicalPayload, payload)));
    }

    /** A reading in the late table. */
    void late(String device, Instant t, String eventId, String canonicalPayload, Map<String, AttributeValue> payload) {
        late.putAll(keyed(readingItem(device, t, eventId, canonicalPayload, payload)));
    }

    /** A rejection, its item by the same rule as the reliability oracle's ({@link ExpectedTables#rejectionItem}). */
    void rejected(String reason, byte[] raw, String origin) {
        Map<String, AttributeValue> item = new HashMap<>(
                ExpectedTables.rejectionItem(Rejection.of(RejectReason.ofCode(reason), "", raw, 0, origin)));
        item.remove("reason");
        rejected.put(List.of(item.get("pk").s(), item.get("sk").s()), TableContents.canonical(item));
    }

    Map<String, Map<List<String>, Map<String, AttributeValue>>> periodTables() {
        return period;
    }

    Map<List<String>, Map<String, AttributeValue>> late() {
        return late;
    }

    Map<List<String>, Map<String, AttributeValue>> rejected() {
        return rejected;
    }

    /** Rejected items as read back, without {@code reason} (the message) and {@code arrivedAt}. */
    static Map<List<String>, Map<String, AttributeValue>> withoutMessageAndArrival(
            Map<List<String>, Map<String, AttributeValue>> items) {
        Map<List<String>, Map<String, AttributeValue>> stripped = new HashMap<>();
        items.forEach((key, item) -> {
            Map<String, AttributeValue> rest = new HashMap<>(item);
            rest.remove("reason");
            rest.remove("arrivedAt");
            stripped.put(key, TableContents.canonical(rest));
        });
        return stripped;
    }

    /** DESIGN.md "Items in period and late tables": pk and sk by {@link WriteSharding}, then the payload. */
    private Map<String, AttributeValue> readingItem(
            String device, Instant t, String eventId, String canonicalPayload, Map<String, AttributeValue> payload) {
        Reading reading = new Reading(device, t.toEpochMilli(), eventId, canonicalPayload);
        WriteSharding.ItemKey key = config.sharding().keyOf(device, t.toEpochMilli(), eventId, reading.canonical());
        Map<String, AttributeValue> item = new HashMap<>(payload);
        item.put("pk", AttributeValue.fromS(key.pk()));
        item.put("sk", AttributeValue.fromS(key.sk()));
        return TableContents.canonical(item);
    }

    private static Map<List<String>, Map<String, AttributeValue>> keyed(Map<String, AttributeValue> item) {
        return Map.of(List.of(item.get("pk").s(), item.get("sk").s()), item);
    }
}
