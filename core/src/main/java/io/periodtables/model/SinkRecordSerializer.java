package io.periodtables.model;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The explicit Flink serializer of {@link SinkRecord}. Format version 3: one byte for the kind
 * (0 period, 3 late, 2 rejected, 4 item), then a reading or a rejection in format version 1 of
 * {@link ReadingSerializer} or {@link RejectionSerializer}; a late record then holds the
 * watermark that made it late (8 bytes); an item record holds its table and item JSON as two
 * strings. Version 2 had no item records; version 1 wrote late records as kind 1 without the
 * watermark; both are still read.
 */
@Internal
public final class SinkRecordSerializer extends ImmutableValueSerializer<SinkRecord> {
    private static final long serialVersionUID = 1L;

    static final int FORMAT_VERSION = 3;

    private static final byte PERIOD = 0;
    private static final byte LATE_V1 = 1;
    private static final byte REJECTED = 2;
    private static final byte LATE = 3;
    private static final byte ITEM = 4;

    public static final SinkRecordSerializer INSTANCE = new SinkRecordSerializer();

    private SinkRecordSerializer() {}

    @Override
    public SinkRecord createInstance() {
        return SinkRecord.period(ReadingSerializer.INSTANCE.createInstance());
    }

    @Override
    public void serialize(SinkRecord record, DataOutputView target) throws IOException {
        switch (record.kind()) {
            case PERIOD -> {
                target.writeByte(PERIOD);
                ReadingSerializer.write(record.reading(), target);
            }
            case LATE -> {
                target.writeByte(LATE);
                ReadingSerializer.write(record.reading(), target);
                target.writeLong(record.lateAtMillis());
            }
            case REJECTED -> {
                target.writeByte(REJECTED);
                RejectionSerializer.write(record.rejection(), target);
            }
            case ITEM -> {
                target.writeByte(ITEM);
                StringValue.writeString(record.table(), target);
                StringValue.writeString(record.itemJson(), target);
            }
            default -> throw new IllegalStateException("unknown kind " + record.kind());
        }
    }

    @Override
    public SinkRecord deserialize(DataInputView source) throws IOException {
        byte kind = source.readByte();
        return switch (kind) {
            case PERIOD -> SinkRecord.period(ReadingSerializer.read(source));
            case LATE -> SinkRecord.late(ReadingSerializer.read(source), source.readLong());
            case LATE_V1 -> SinkRecord.late(ReadingSerializer.read(source), SinkRecord.UNKNOWN);
            case REJECTED -> SinkRecord.rejected(RejectionSerializer.read(source));
            case ITEM -> SinkRecord.item(StringValue.readString(source), StringValue.readString(source));
            default -> throw new IOException("corrupt sink record state: unknown kind byte " + kind);
        };
    }

    @Override
    public TypeSerializerSnapshot<SinkRecord> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link SinkRecordSerializer}; its version is the format version. */
    public static final class Snapshot extends FormatVersionSnapshot<SinkRecord> {
        public Snapshot() {
            super(FORMAT_VERSION);
        }

        @Override
        TypeSerializer<SinkRecord> serializer() {
            return INSTANCE;
        }
    }

    /** Registered on {@link SinkRecord} with {@code @TypeInfo}. */
    public static final class TypeFactory extends TypeInfoFactory<SinkRecord> {
        @Override
        public TypeInformation<SinkRecord> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new ExplicitTypeInfo<>(SinkRecord.class, INSTANCE);
        }
    }
}
