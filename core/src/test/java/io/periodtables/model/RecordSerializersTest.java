package io.periodtables.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class RecordSerializersTest {

    private static final Reading WITH_EVENT_ID = new Reading("dev-ü", 1_700_000_000_123L, "e-1", "{\"t\":21.5}");
    private static final Reading WITHOUT_EVENT_ID = new Reading("dev-2", -5L, null, "{}");
    private static final Rejection REJECTION = Rejection.of(
            RejectReason.BAD_TIMESTAMP,
            "timestamp 'x' is not ISO-8601",
            new byte[] {1, 2, (byte) 0xff},
            42L,
            "shard-0/7");

    @Test
    void flinkUsesTheExplicitSerializers() {
        SerializerConfigImpl config = new SerializerConfigImpl();
        assertThat(TypeInformation.of(Reading.class).createSerializer(config)).isSameAs(ReadingSerializer.INSTANCE);
        assertThat(TypeInformation.of(Rejection.class).createSerializer(config)).isSameAs(RejectionSerializer.INSTANCE);
        assertThat(TypeInformation.of(SinkRecord.class).createSerializer(config))
                .isSameAs(SinkRecordSerializer.INSTANCE);
    }

    @Test
    void readingsRoundTrip() throws IOException {
        assertThat(roundTrip(ReadingSerializer.INSTANCE, List.of(WITH_EVENT_ID, WITHOUT_EVENT_ID)))
                .containsExactly(WITH_EVENT_ID, WITHOUT_EVENT_ID);
    }

    @Test
    void rejectionsRoundTrip() throws IOException {
        Rejection big = Rejection.of(RejectReason.ITEM_TOO_LARGE, "m", "x".repeat(100_000), 1L, "readings_x");
        assertThat(roundTrip(RejectionSerializer.INSTANCE, List.of(REJECTION, big)))
                .containsExactly(REJECTION, big);
    }

    @Test
    void everyReasonRoundTripsThroughItsStoredCode() throws IOException {
        List<Rejection> all = java.util.Arrays.stream(RejectReason.values())
                .map(reason -> Rejection.of(reason, "m", "x", 1L, "o"))
                .toList();
        assertThat(roundTrip(RejectionSerializer.INSTANCE, all)).containsExactlyElementsOf(all);
        assertThat(java.util.Arrays.stream(RejectReason.values()).map(RejectReason::code))
                .doesNotHaveDuplicates()
                .allMatch(code -> code.matches("[a-z]+(-[a-z]+)*"));
    }

    @Test
    void aRejectionWithAnUnknownReasonCodeIsRefusedWithAMessage() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        RejectionSerializer.INSTANCE.serialize(REJECTION, out);
        byte[] bytes = out.getCopyOfBuffer();
        // The reason code is the first string of the format: replace it by one this build does not know.
        DataOutputSerializer unknown = new DataOutputSerializer(64);
        org.apache.flink.types.StringValue.writeString("from-the-future", unknown);
        DataInputDeserializer original = new DataInputDeserializer(bytes);
        org.apache.flink.types.StringValue.readString(original);
        byte[] rest = new byte[original.available()];
        original.readFully(rest);
        unknown.write(rest);

        assertThatThrownBy(() ->
                        RejectionSerializer.INSTANCE.deserialize(new DataInputDeserializer(unknown.getCopyOfBuffer())))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("from-the-future");
    }

    @Test
    void sinkRecordsOfEveryKindRoundTrip() throws IOException {
        List<SinkRecord> records = List.of(
                SinkRecord.period(WITH_EVENT_ID),
                SinkRecord.late(WITHOUT_EVENT_ID, 1_700_000_000_999L),
                SinkRecord.rejected(REJECTION));
        assertThat(roundTrip(SinkRecordSerializer.INSTANCE, records)).containsExactlyElementsOf(records);
    }

    @Test
    void aLateRecordOfFormatOneIsReadWithoutItsWatermark() throws IOException {
        DataOutputSerializer v1 = new DataOutputSerializer(64);
        v1.writeByte(1); // format 1's kind byte of a late record, followed by the reading alone
        ReadingSerializer.INSTANCE.serialize(WITH_EVENT_ID, v1);

        SinkRecord read = SinkRecordSerializer.INSTANCE.deserialize(new DataInputDeserializer(v1.getCopyOfBuffer()));

        assertThat(read.kind()).isEqualTo(SinkRecord.Kind.LATE);
        assertThat(read.reading()).isEqualTo(WITH_EVENT_ID);
        assertThat(read.lateAtMillis()).isEqualTo(SinkRecord.UNKNOWN);
    }

    @Test
    void aFormatOneSnapshotIsCompatibleAfterMigration() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeUTF(SinkRecordSerializer.Snapshot.class.getName());
        out.writeInt(1);
        TypeSerializerSnapshot<SinkRecord> v1 = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());

        assertThat(SinkRecordSerializer.INSTANCE
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(v1)
                        .isCompatibleAfterMigration())
                .isTrue();
    }

    @Test
    void snapshotsRestoreTheSerializerAsCompatible() throws IOException {
        assertRestores(ReadingSerializer.INSTANCE);
        assertRestores(RejectionSerializer.INSTANCE);
        assertRestores(SinkRecordSerializer.INSTANCE);
    }

    @Test
    void snapshotOfANewerFormatIsRefusedWithAMessage() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeUTF(ReadingSerializer.Snapshot.class.getName());
        out.writeInt(ReadingSerializer.FORMAT_VERSION + 1);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());

        assertThatThrownBy(() -> TypeSerializerSnapshot.readVersionedSnapshot(
                        in, getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format version 2")
                .hasMessageContaining("reads versions 1 to 1");
    }

    @Test
    void rejectionKeepsAtMost64KbCutAtACharacterBoundary() {
        String text = "a".repeat(Rejection.MAX_RAW_BYTES - 1) + "€€€";
        Rejection rejection = Rejection.of(RejectReason.INVALID_JSON, "m", text, 0L, "o");

        assertThat(rejection.rawBytes()).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
        assertThat(rejection.raw()).hasSize(Rejection.MAX_RAW_BYTES - 1);
        assertThat(new String(rejection.raw(), StandardCharsets.UTF_8))
                .isEqualTo("a".repeat(Rejection.MAX_RAW_BYTES - 1));
        assertThat(rejection.rawHash())
                .matches("[0-9a-f]{16}")
                .isEqualTo(Rejection.of(RejectReason.INVALID_JSON, "other message", text, 9L, "p")
                        .rawHash());
    }

    @Test
    void canonicalReadingSeparatesDeviceFromPayload() {
        assertThat(new Reading("a:1", 2, null, "{}").canonical())
                .isNotEqualTo(new Reading("a", 1, null, "2:{}").canonical());
        assertThat(WITHOUT_EVENT_ID.canonical()).isEqualTo("5:dev-2:-5:{}");
    }

    private static <T> List<T> roundTrip(TypeSerializer<T> serializer, List<T> values) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        for (T value : values) {
            serializer.serialize(value, out);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        List<T> back = new java.util.ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            back.add(serializer.deserialize(in));
        }
        assertThat(in.available()).isZero();
        return back;
    }

    private static <T> void assertRestores(TypeSerializer<T> serializer) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<T> restored = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), RecordSerializersTest.class.getClassLoader());

        assertThat(restored.restoreSerializer()).isEqualTo(serializer);
        TypeSerializerSchemaCompatibility<T> compatibility =
                serializer.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertThat(compatibility.isCompatibleAsIs()).isTrue();
    }
}
