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
 * The explicit Flink serializer of {@link Reading}. Format version 1: device id, event millis,
 * nullable event id, payload JSON (strings in Flink's {@link StringValue} encoding).
 */
@Internal
public final class ReadingSerializer extends ImmutableValueSerializer<Reading> {
    private static final long serialVersionUID = 1L;

    /** The version of the binary format written by {@link #serialize}. */
    static final int FORMAT_VERSION = 1;

    public static final ReadingSerializer INSTANCE = new ReadingSerializer();

    private ReadingSerializer() {}

    @Override
    public Reading createInstance() {
        return new Reading("", 0L, null, "{}");
    }

    @Override
    public void serialize(Reading reading, DataOutputView target) throws IOException {
        write(reading, target);
    }

    @Override
    public Reading deserialize(DataInputView source) throws IOException {
        return read(source);
    }

    static void write(Reading reading, DataOutputView target) throws IOException {
        StringValue.writeString(reading.deviceId(), target);
        target.writeLong(reading.eventMillis());
        StringValue.writeString(reading.eventId(), target);
        StringValue.writeString(reading.payloadJson(), target);
    }

    static Reading read(DataInputView source) throws IOException {
        String deviceId = StringValue.readString(source);
        long eventMillis = source.readLong();
        String eventId = StringValue.readString(source);
        String payloadJson = StringValue.readString(source);
        return new Reading(deviceId, eventMillis, eventId, payloadJson);
    }

    @Override
    public TypeSerializerSnapshot<Reading> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link ReadingSerializer}; its version is the format version. */
    public static final class Snapshot extends FormatVersionSnapshot<Reading> {
        public Snapshot() {
            super(FORMAT_VERSION);
        }

        @Override
        TypeSerializer<Reading> serializer() {
            return INSTANCE;
        }
    }

    /** Registered on {@link Reading} with {@code @TypeInfo}. */
    public static final class TypeFactory extends TypeInfoFactory<Reading> {
        @Override
        public TypeInformation<Reading> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new ExplicitTypeInfo<>(Reading.class, INSTANCE);
        }
    }
}
