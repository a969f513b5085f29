package io.periodtables.rotation;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;

/**
 * The explicit, versioned byte format of {@link RotationState}. Version 2 (written):
 * {@code watermark:long}. Version 1 (read from older savepoints) starts with the same
 * {@code watermark:long}, followed by the retention label and the tables the rotation then
 * tracked; those are ignored, the tables are read back from DynamoDB.
 */
final class RotationStateSerializer implements SimpleVersionedSerializer<RotationState> {
    static final RotationStateSerializer INSTANCE = new RotationStateSerializer();
    private static final int VERSION = 2;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(RotationState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        out.writeLong(state.watermark);
        return out.getCopyOfBuffer();
    }

    @Override
    public RotationState deserialize(int version, byte[] bytes) throws IOException {
        if (version != 1 && version != VERSION) {
            throw new IOException("unknown rotation state version " + version + " (this build reads versions 1 and "
                    + VERSION + ")");
        }
        RotationState state = new RotationState();
        state.watermark = new DataInputDeserializer(bytes).readLong();
        return state;
    }
}
