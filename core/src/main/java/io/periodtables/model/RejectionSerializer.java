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
 * The explicit Flink serializer of {@link Rejection}. Format version 1: reason, message,
 * raw length and bytes, original raw size, arrival millis, origin.
 */
@Internal
public final class RejectionSerializer extends ImmutableValueSerializer<Rejection> {
    private static final long serialVersionUID = 1L;

    static final int FORMAT_VERSION = 1;

    public static final RejectionSerializer INSTANCE = new RejectionSerializer();

    private RejectionSerializer() {}

    @Override
    public Rejection createInstance() {
        return new Rejection(RejectReason.INVALID_JSON, "", new byte[0], 0L, 0L, "");
    }

    @Override
    public void serialize(Rejection rejection, DataOutputView target) throws IOException {
        write(rejection, target);
    }

    @Override
    public Rejection deserialize(DataInputView source) throws IOException {
        return read(source);
    }

    static void write(Rejection rejection, DataOutputView target) throws IOException {
        StringValue.writeString(rejection.reason().code(), target);
        StringValue.writeString(rejection.message(), target);
        target.writeInt(rejection.raw().length);
        target.write(rejection.raw());
        target.writeLong(rejection.rawBytes());
        target.writeLong(rejection.arrivedAtMillis());
        StringValue.writeString(rejection.origin(), target);
    }

    static Rejection read(DataInputView source) throws IOException {
        String code = StringValue.readString(source);
        RejectReason reason;
        try {
            reason = RejectReason.ofCode(code);
        } catch (IllegalArgumentException unknown) {
            throw new IOException("corrupt rejection state or a newer version's: " + unknown.getMessage(), unknown);
        }
        String message = StringValue.readString(source);
        int rawLength = source.readInt();
        if (rawLength < 0 || rawLength > Rejection.MAX_RAW_BYTES) {
            throw new IOException("corrupt rejection state: raw length " + rawLength);
        }
        byte[] raw = new byte[rawLength];
        source.readFully(raw);
        long rawBytes = source.readLong();
        long arrivedAtMillis = source.readLong();
        String origin = StringValue.readString(source);
        return new Rejection(reason, message, raw, rawBytes, arrivedAtMillis, origin);
    }

    @Override
    public TypeSerializerSnapshot<Rejection> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link RejectionSerializer}; its version is the format version. */
    public static final class Snapshot extends FormatVersionSnapshot<Rejection> {
        public Snapshot() {
            super(FORMAT_VERSION);
        }

        @Override
        TypeSerializer<Rejection> serializer() {
            return INSTANCE;
        }
    }

    /** Registered on {@link Rejection} with {@code @TypeInfo}. */
    public static final class TypeFactory extends TypeInfoFactory<Rejection> {
        @Override
        public TypeInformation<Rejection> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new ExplicitTypeInfo<>(Rejection.class, INSTANCE);
        }
    }
}
