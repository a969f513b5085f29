package io.periodtables.job.rollups;

import io.periodtables.core.item.Rollups;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * One bucket of one device while its period is open: the readings counted, per field the exact
 * statistics, and whether it changed since its item was last emitted. Kept in {@link RollupBuckets}'
 * state with its own {@link Serializer}, format 1: a version byte, then the fields in a fixed order.
 */
@Internal
public final class RollupAggregate {
    private static final byte FORMAT = 1;

    private long readings;
    private boolean changed;
    private final Map<String, Field> fields = new TreeMap<>();

    /** A field's running statistics; first and last by event time, then sort key. */
    private static final class Field {
        long count;
        BigDecimal min;
        BigDecimal max;
        BigDecimal sum;
        long firstMillis;
        String firstSk;
        BigDecimal first;
        long lastMillis;
        String lastSk;
        BigDecimal last;
    }

    void add(long eventMillis, String sk, Map<String, BigDecimal> values) {
        readings++;
        changed = true;
        values.forEach((name, value) -> {
            Field f = fields.get(name);
            if (f == null) {
                f = new Field();
                f.min = value;
                f.max = value;
                f.sum = BigDecimal.ZERO;
                f.firstMillis = eventMillis;
                f.firstSk = sk;
                f.first = value;
                f.lastMillis = eventMillis;
                f.lastSk = sk;
                f.last = value;
                fields.put(name, f);
            }
            f.count++;
            f.sum = f.sum.add(value);
            if (value.compareTo(f.min) < 0) {
                f.min = value;
            }
            if (value.compareTo(f.max) > 0) {
                f.max = value;
            }
            if (before(eventMillis, sk, f.firstMillis, f.firstSk)) {
                f.firstMillis = eventMillis;
                f.firstSk = sk;
                f.first = value;
            }
            if (before(f.lastMillis, f.lastSk, eventMillis, sk)) {
                f.lastMillis = eventMillis;
                f.lastSk = sk;
                f.last = value;
            }
        });
    }

    private static boolean before(long aMillis, String aSk, long bMillis, String bSk) {
        return aMillis < bMillis || (aMillis == bMillis && aSk.compareTo(bSk) < 0);
    }

    /** Whether every reading it counted (each field's first and last) lies from {@code from} to before {@code to}. */
    boolean within(long from, long to) {
        for (Field f : fields.values()) {
            if (f.firstMillis < from || f.lastMillis >= to) {
                return false;
            }
        }
        return true;
    }

    boolean changed() {
        return changed;
    }

    void written() {
        changed = false;
    }

    Rollups.Bucket bucket(String device, Duration grain, long start) {
        Map<String, Rollups.FieldStats> stats = new TreeMap<>();
        fields.forEach(
                (name, f) -> stats.put(name, new Rollups.FieldStats(f.count, f.min, f.max, f.sum, f.first, f.last)));
        return new Rollups.Bucket(device, grain, start, readings, stats);
    }

    /** Writes format 1. */
    void write(DataOutputView out) throws IOException {
        out.writeByte(FORMAT);
        out.writeLong(readings);
        out.writeBoolean(changed);
        out.writeInt(fields.size());
        for (Map.Entry<String, Field> e : fields.entrySet()) {
            Field f = e.getValue();
            out.writeUTF(e.getKey());
            out.writeLong(f.count);
            out.writeUTF(f.min.toString());
            out.writeUTF(f.max.toString());
            out.writeUTF(f.sum.toString());
            out.writeLong(f.firstMillis);
            out.writeUTF(f.firstSk);
            out.writeUTF(f.first.toString());
            out.writeLong(f.lastMillis);
            out.writeUTF(f.lastSk);
            out.writeUTF(f.last.toString());
        }
    }

    static RollupAggregate read(DataInputView in) throws IOException {
        RollupAggregate a = new RollupAggregate();
        byte format = in.readByte();
        if (format != FORMAT) {
            throw new IOException("rollup state of format " + format + ", this version reads " + FORMAT);
        }
        a.readings = in.readLong();
        a.changed = in.readBoolean();
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            String name = in.readUTF();
            Field f = new Field();
            f.count = in.readLong();
            f.min = new BigDecimal(in.readUTF());
            f.max = new BigDecimal(in.readUTF());
            f.sum = new BigDecimal(in.readUTF());
            f.firstMillis = in.readLong();
            f.firstSk = in.readUTF();
            f.first = new BigDecimal(in.readUTF());
            f.lastMillis = in.readLong();
            f.lastSk = in.readUTF();
            f.last = new BigDecimal(in.readUTF());
            a.fields.put(name, f);
        }
        return a;
    }

    /** A deep copy (fields are mutable; BigDecimals and Strings are not). */
    RollupAggregate copy() {
        RollupAggregate c = new RollupAggregate();
        c.readings = readings;
        c.changed = changed;
        fields.forEach((name, f) -> {
            Field g = new Field();
            g.count = f.count;
            g.min = f.min;
            g.max = f.max;
            g.sum = f.sum;
            g.firstMillis = f.firstMillis;
            g.firstSk = f.firstSk;
            g.first = f.first;
            g.lastMillis = f.lastMillis;
            g.lastSk = f.lastSk;
            g.last = f.last;
            c.fields.put(name, g);
        });
        return c;
    }

    /**
     * The explicit state serializer of {@link RollupAggregate}: the heap state backend keeps the
     * objects themselves, RocksDB format 1 (the version of its snapshot).
     */
    static final class Serializer extends TypeSerializer<RollupAggregate> {
        private static final long serialVersionUID = 1L;

        static final Serializer INSTANCE = new Serializer();

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public TypeSerializer<RollupAggregate> duplicate() {
            return this;
        }

        @Override
        public RollupAggregate createInstance() {
            return new RollupAggregate();
        }

        @Override
        public RollupAggregate copy(RollupAggregate from) {
            return from.copy();
        }

        @Override
        public RollupAggregate copy(RollupAggregate from, RollupAggregate reuse) {
            return from.copy();
        }

        @Override
        public int getLength() {
            return -1;
        }

        @Override
        public void serialize(RollupAggregate record, DataOutputView target) throws IOException {
            record.write(target);
        }

        @Override
        public RollupAggregate deserialize(DataInputView source) throws IOException {
            return read(source);
        }

        @Override
        public RollupAggregate deserialize(RollupAggregate reuse, DataInputView source) throws IOException {
            return read(source);
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            read(source).write(target);
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof Serializer;
        }

        @Override
        public int hashCode() {
            return Serializer.class.hashCode();
        }

        @Override
        public TypeSerializerSnapshot<RollupAggregate> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /**
     * The snapshot of {@link Serializer}; version 1 is format 1. Not final: savepoints taken before
     * the rollups had their package name {@code io.periodtables.job.RollupAggregate$Snapshot}, which
     * extends it.
     */
    public static class Snapshot extends SimpleTypeSerializerSnapshot<RollupAggregate> {
        public Snapshot() {
            super(() -> Serializer.INSTANCE);
        }
    }
}
