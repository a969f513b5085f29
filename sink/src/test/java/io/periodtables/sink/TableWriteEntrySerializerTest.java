package io.periodtables.sink;

import io.periodtables.conf.DynamoDbItemSize;

import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.RequestEntryWrapper;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
                "m", AttributeValue.fromM(Map.of("inner", AttributeValue.fromM(Map.of("x", AttributeValue.fromN("1"))))),
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

        BufferedRequestState<TableWriteEntry> back = serializer.deserialize(
                serializer.getVersion(), serializer.serialize(state(entries)));

        assertThat(back.getBufferedRequestEntries()).extracting(RequestEntryWrapper::getRequestEntry)
                .extracting(TableWriteEntry::table, TableWriteEntry::item)
                .containsExactlyElementsOf(entries.stream().map(e -> org.assertj.core.groups.Tuple.tuple(e.table(), e.item())).toList());
        assertThat(back.getBufferedRequestEntries()).extracting(RequestEntryWrapper::getRequestEntry)
                .as("retry counters do not survive a restore").allSatisfy(e -> assertThat(e.failedAttempts()).isZero());
        assertThat(back.getBufferedRequestEntries()).extracting(RequestEntryWrapper::getSize)
                .containsExactly(entries.get(0).sizeBytes(), entries.get(1).sizeBytes(), entries.get(2).sizeBytes());
    }

    @Test
    void versionIsOneAndOtherVersionsAreRefused() throws Exception {
        assertThat(serializer.getVersion()).isEqualTo(1);
        byte[] bytes = serializer.serialize(state(List.of()));
        assertThatThrownBy(() -> serializer.deserialize(2, bytes))
                .hasMessageContaining("writer state has version 2, this build reads version 1");
    }

    private static BufferedRequestState<TableWriteEntry> state(List<TableWriteEntry> entries) {
        List<RequestEntryWrapper<TableWriteEntry>> wrapped = new ArrayList<>();
        entries.forEach(e -> wrapped.add(new RequestEntryWrapper<>(e, e.sizeBytes())));
        return new BufferedRequestState<>(wrapped);
    }
}
