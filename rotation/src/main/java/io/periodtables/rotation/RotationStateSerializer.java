package io.periodtables.rotation;

import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.Period;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.time.Instant;

/**
 * The explicit, versioned byte format of {@link RotationState}. Version 1:
 * {@code watermark:long, hasLabel:boolean, [label:UTF], count:int}, then per table
 * {@code name:UTF, periodStartMillis:long, periodEndMillis:long, periodLabel:UTF,
 * ensured:boolean, tier:UTF (enum name)}. A new layout gets a new version; old versions stay
 * readable.
 */
final class RotationStateSerializer implements SimpleVersionedSerializer<RotationState> {
    static final RotationStateSerializer INSTANCE = new RotationStateSerializer();
    private static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(RotationState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeLong(state.watermark);
        out.writeBoolean(state.retentionPeriodLabel != null);
        if (state.retentionPeriodLabel != null) {
            out.writeUTF(state.retentionPeriodLabel);
        }
        out.writeInt(state.tables().size());
        for (TrackedTable table : state.tables()) {
            out.writeUTF(table.name);
            out.writeLong(table.period.startMillis());
            out.writeLong(table.period.endMillis());
            out.writeUTF(table.period.label());
            out.writeBoolean(table.ensured);
            out.writeUTF(table.tier.name());
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public RotationState deserialize(int version, byte[] bytes) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown rotation state version " + version + " (this build reads version " + VERSION + ")");
        }
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        RotationState state = new RotationState();
        state.watermark = in.readLong();
        if (in.readBoolean()) {
            state.retentionPeriodLabel = in.readUTF();
        }
        int count = in.readInt();
        for (int i = 0; i < count; i++) {
            String name = in.readUTF();
            Period period = new Period(Instant.ofEpochMilli(in.readLong()), Instant.ofEpochMilli(in.readLong()), in.readUTF());
            boolean ensured = in.readBoolean();
            CapacityTier tier = CapacityTier.valueOf(in.readUTF());
            state.put(new TrackedTable(name, period, ensured, tier));
        }
        return state;
    }
}
