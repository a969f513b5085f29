package io.periodtables.job;

import io.periodtables.conf.Rollups;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * One bucket of one device while its period is open: the readings counted, per field the exact
 * statistics, and whether it changed since its item was last emitted. Stored as bytes in
 * {@link RollupBuckets}' state, format 1: a version byte, then the fields in a fixed order.
 */
final class RollupAggregate {
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

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 96 * fields.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static RollupAggregate decode(byte[] bytes) {
        RollupAggregate a = new RollupAggregate();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return a;
    }
}
