package io.periodtables.rotation.operator;

import io.periodtables.rotation.lifecycle.WriteLoad;
import io.periodtables.rotation.reconcile.RotationState;
import java.io.IOException;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The explicit, versioned byte format of {@link RotationState}. Version 4 (written):
 * {@code watermark:long}, {@code peaks:int} × ({@code table:UTF}, {@code writeUnits:long}),
 * {@code openTables:int} × ({@code table:UTF}, {@code seconds:int} × ({@code second:long},
 * {@code writeUnits:long})), {@code kinds:int} × ({@code kind:UTF}, {@code firstSecond:long}).
 * Version 3 is the same without the kinds: it restores as if counting had begun at its watermark,
 * so the period it was taken in counts as seen in part (its successor three on opens at no less
 * than the {@code current} tier until the next period has closed). Version 2 is the {@code watermark:long} alone
 * (nothing observed yet: the next table opens at the {@code current} tier). Version 1 starts with the same
 * {@code watermark:long}, followed by the retention label and the tables the rotation then
 * tracked; those are ignored, the tables are read back from DynamoDB.
 */
public final class RotationStateSerializer implements SimpleVersionedSerializer<RotationState> {
    static final RotationStateSerializer INSTANCE = new RotationStateSerializer();
    private static final int VERSION = 4;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(RotationState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeLong(state.watermark);
        out.writeInt(state.load.peaks.size());
        for (Map.Entry<String, Long> peak : state.load.peaks.entrySet()) {
            out.writeUTF(peak.getKey());
            out.writeLong(peak.getValue());
        }
        out.writeInt(state.load.open.size());
        for (Map.Entry<String, NavigableMap<Long, Long>> table : state.load.open.entrySet()) {
            out.writeUTF(table.getKey());
            out.writeInt(table.getValue().size());
            for (Map.Entry<Long, Long> second : table.getValue().entrySet()) {
                out.writeLong(second.getKey());
                out.writeLong(second.getValue());
            }
        }
        out.writeInt(state.load.firstSeconds.size());
        for (Map.Entry<String, Long> first : state.load.firstSeconds.entrySet()) {
            out.writeUTF(first.getKey());
            out.writeLong(first.getValue());
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public RotationState deserialize(int version, byte[] bytes) throws IOException {
        if (version < 1 || version > VERSION) {
            throw new IOException(
                    "unknown rotation state version " + version + " (this build reads versions 1 to " + VERSION + ")");
        }
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        RotationState state = new RotationState();
        state.watermark = in.readLong();
        if (version < 3) {
            return state;
        }
        for (int i = in.readInt(); i > 0; i--) {
            state.load.peaks.put(in.readUTF(), in.readLong());
        }
        for (int i = in.readInt(); i > 0; i--) {
            NavigableMap<Long, Long> seconds = new TreeMap<>();
            String table = in.readUTF();
            for (int j = in.readInt(); j > 0; j--) {
                seconds.put(in.readLong(), in.readLong());
            }
            state.load.open.put(table, seconds);
        }
        if (version >= 4) {
            for (int i = in.readInt(); i > 0; i--) {
                state.load.firstSeconds.put(in.readUTF(), in.readLong());
            }
        } else if (state.hasWatermark()) {
            long second = Math.floorDiv(state.watermark, 1000L);
            state.load.peaks.keySet().forEach(t -> state.load.firstSeconds.put(WriteLoad.kind(t), second));
        }
        return state;
    }
}
