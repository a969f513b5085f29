package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.periodtables.core.item.DynamoDbItemSize;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.RequestEntryWrapper;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class TableWriteEntrySerializerTest {

    private final TableWriteEntrySerializer serializer = new TableWriteEntrySerializer();

    @Test
    void bufferedEntriesForSeveralTablesRoundTripWithTableSizeAndAttempts() throws Exception {
        Map<String, AttributeValue> everyType = Map.of(
                "pk", AttributeValue.fromS("dev-1#3"),
                "sk", AttributeValue.fromS("2026-11-22T13:45:01.123Z#9f3a2c1b"),
                "n", AttributeValue.fromN("-1.5e3"),
                "b", AttributeValue.fromBool(true),
                "l", AttributeValue.fromL(List.of(AttributeValue.fromNul(true), AttributeValue.fromS("é"))),
                "m",
                        AttributeValue.fromM(
                                Map.of("inner", AttributeValue.fromM(Map.of("x", AttributeValue.fromN("1"))))),
                "long", AttributeValue.fromS("x".repeat(100_000)),
                "ttl", AttributeValue.fromN("1800000000"));
        Map<String, AttributeValue> rejected = Map.of(
                "pk", AttributeValue.fromS("invalid-json"),
                "sk", AttributeValue.fromS("0123456789abcdef"),
                "raw", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {(byte) 0xff, 0})));
        List<TableWriteEntry> entries = List.of(
                new TableWriteEntry("readings_2026-11-22T1300", everyType, DynamoDbItemSize.of(everyType), 0),
                new TableWriteEntry("readings_late_2026-12", everyType, DynamoDbItemSize.of(everyType), 7),
                new TableWriteEntry("readings_rejected", rejected, DynamoDbItemSize.of(rejected), 1));

        BufferedRequestState<TableWriteEntry> back =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(state(entries)));

        assertThat(back.getBufferedRequestEntries())
                .extracting(RequestEntryWrapper::getRequestEntry)
                .extracting(TableWriteEntry::table, TableWriteEntry::item)
                .containsExactlyElementsOf(
                        entries.stream().map(e -> tuple(e.table(), e.item())).toList());
        assertThat(back.getBufferedRequestEntries())
                .extracting(RequestEntryWrapper::getRequestEntry)
                .as("retry counters do not survive a restore")
                .allSatisfy(e -> assertThat(e.failedAttempts()).isZero());
        assertThat(back.getBufferedRequestEntries())
                .extracting(RequestEntryWrapper::getSize)
                .containsExactly(
                        entries.get(0).sizeBytes(),
                        entries.get(1).sizeBytes(),
                        entries.get(2).sizeBytes());
    }

    @Test
    void loneSurrogatesAndEveryOtherStringRoundTripUnchanged() throws Exception {
        String[] strings = {"\ud83c", "x\udc00y", "\ude00\ud83d", "\ud83d\ude00", "\u0000", "\uffff", "é€", ""};
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", AttributeValue.fromS("dev-\ud800#1"));
        item.put("sk", AttributeValue.fromS("2026-11-22T13:45:01.123Z#\udfff"));
        for (int i = 0; i < strings.length; i++) {
            item.put("s" + i + strings[i], AttributeValue.fromS(strings[i]));
        }
        item.put(
                "nested",
                AttributeValue.fromM(
                        Map.of("\udbff", AttributeValue.fromL(List.of(AttributeValue.fromS("a\ud83cb"))))));
        TableWriteEntry entry = new TableWriteEntry("readings_2026-11-22T1300", item, DynamoDbItemSize.of(item), 0);

        BufferedRequestState<TableWriteEntry> back =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(state(List.of(entry))));

        assertThat(back.getBufferedRequestEntries())
                .singleElement()
                .satisfies(
                        wrapper -> assertThat(wrapper.getRequestEntry().item()).isEqualTo(item));
    }

    @Test
    void stateWrittenByVersion1IsRestoredWithItsEntriesAndFreshAttempts() throws Exception {
        // Written by the version-1 serializer (UTF-8 strings, attempts after the table name).
        byte[] version1;
        try (InputStream in = getClass().getResourceAsStream("writer-state-v1.bin")) {
            version1 = in.readAllBytes();
        }
        Map<String, AttributeValue> reading = Map.of(
                "pk", AttributeValue.fromS("dev-1#3"),
                "sk", AttributeValue.fromS("2026-11-22T13:45:01.123Z#9f3a2c1b"),
                "t", AttributeValue.fromS("Zürich 😀"),
                "n", AttributeValue.fromN("-1.5e3"),
                "ok", AttributeValue.fromBool(true),
                "l", AttributeValue.fromL(List.of(AttributeValue.fromNul(true), AttributeValue.fromS("é"))),
                "m", AttributeValue.fromM(Map.of("x", AttributeValue.fromN("1"))));
        Map<String, AttributeValue> rejected = Map.of(
                "pk", AttributeValue.fromS("invalid-json"),
                "sk", AttributeValue.fromS("0123456789abcdef"),
                "raw", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {(byte) 0xff, 0})));

        BufferedRequestState<TableWriteEntry> back = serializer.deserialize(1, version1);

        assertThat(back.getBufferedRequestEntries())
                .extracting(RequestEntryWrapper::getRequestEntry)
                .extracting(TableWriteEntry::table, TableWriteEntry::item, TableWriteEntry::failedAttempts)
                .containsExactly(
                        tuple("readings_2026-11-22T1300", reading, 0),
                        tuple("readings_late_2026-12", reading, 0),
                        tuple("readings_rejected", rejected, 0));
        assertThat(back.getBufferedRequestEntries())
                .extracting(RequestEntryWrapper::getSize)
                .containsExactly(81L, 81L, 37L);
    }

    @Test
    void versionIsTwoAndUnknownVersionsAreRefused() throws Exception {
        assertThat(serializer.getVersion()).isEqualTo(2);
        byte[] bytes = serializer.serialize(state(List.of()));
        assertThatThrownBy(() -> serializer.deserialize(3, bytes))
                .hasMessageContaining("writer state has version 3, this build reads versions 1 and 2");
    }

    private static BufferedRequestState<TableWriteEntry> state(List<TableWriteEntry> entries) {
        List<RequestEntryWrapper<TableWriteEntry>> wrapped = new ArrayList<>();
        entries.forEach(e -> wrapped.add(new RequestEntryWrapper<>(e, e.sizeBytes())));
        return new BufferedRequestState<>(wrapped);
    }
}
