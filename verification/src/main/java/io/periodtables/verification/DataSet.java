package io.periodtables.verification;

import io.periodtables.core.period.TableNaming;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixed data set a run puts into its stream, relative to the start of its first period (three
 * periods {@code P1}, {@code P2}, {@code P3} of the run's length; the same set for the same start):
 * three devices with four readings each, the first device a fifth in {@code P2} and {@code P3}, two in
 * the fourth period (which close {@code P3}), three readings put twice, a reading of {@code P1} put once {@code P1} is
 * past its lateness, and three records
 * the job must reject with their reason. Before the shard split every record goes to the one shard;
 * after it the devices go to both children (explicit hash keys).
 */
final class DataSet {
    /** A record put into the stream: its text, and the hash key that picks its shard. */
    record Put(String data, String hashKey) {}

    /** A reading the job must store once, in {@code table}. */
    record Reading(String device, Instant at, long seq, BigDecimal temperature, String table) {
        String json() {
            return "{\"deviceId\":\"" + device + "\",\"timestamp\":\"" + at + "\",\"seq\":" + seq + ",\"temperature\":"
                    + temperature.toPlainString() + "}";
        }
    }

    /** A record the job must reject with {@code reason}. */
    record Bad(String raw, String reason) {}

    static final List<String> DEVICES = List.of("verify-device-1", "verify-device-2", "verify-device-3");
    private static final String LOWER_HALF = "0";
    private static final String UPPER_HALF = BigInteger.ONE.shiftLeft(127).toString();

    private final Instant start;
    private final Duration period;
    private final List<Reading> p1 = new ArrayList<>();
    private final List<Reading> p2 = new ArrayList<>();
    private final List<Reading> p3 = new ArrayList<>();
    private final List<Reading> p4 = new ArrayList<>();
    private final Reading late;
    private final List<Bad> bad;

    /** @param start the start of the first period */
    DataSet(Instant start, Duration period, TableNaming naming) {
        this.start = start;
        this.period = period;
        long seq = 1;
        for (int p = 0; p < 3; p++) {
            List<Reading> readings = p == 0 ? p1 : p == 1 ? p2 : p3;
            Instant periodStart = start.plus(period.multipliedBy(p));
            String table = naming.periodTableOf(periodStart);
            for (int i = 0; i < 4; i++) {
                for (int d = 0; d < DEVICES.size(); d++) {
                    // sixteenths 1..12 of the period
                    Instant at =
                            periodStart.plus(period.multipliedBy(1 + 4 * i + d).dividedBy(16));
                    readings.add(new Reading(DEVICES.get(d), at, seq, temperature(seq), table));
                    seq++;
                }
            }
            if (p > 0) {
                // at 15/16: past the prebuild of the next period's table (at half the period)
                Instant at = periodStart.plus(period.multipliedBy(15).dividedBy(16));
                readings.add(new Reading(DEVICES.get(0), at, seq, temperature(seq), table));
                seq++;
            }
        }
        // a quarter into the fourth period, on both children of the split: the job's watermark (their
        // minimum) passes the third period's lateness (a sixth) without waiting for an idle child
        Instant fourth = start.plus(period.multipliedBy(3));
        for (int d = 0; d < 2; d++) {
            p4.add(new Reading(
                    DEVICES.get(d),
                    fourth.plus(period.dividedBy(4)),
                    seq,
                    temperature(seq),
                    naming.periodTableOf(fourth)));
            seq++;
        }
        Instant lateAt = start.plus(period.dividedBy(2)).plusMillis(1);
        this.late = new Reading(DEVICES.get(1), lateAt, 999, temperature(999), null);
        String at = start.plus(period.dividedBy(3)).toString();
        this.bad = List.of(
                new Bad("{\"deviceId\": \"verify-device-1\", \"seq\": 9", "invalid-json"),
                new Bad("{\"timestamp\":\"" + at + "\",\"seq\":901}", "missing-device"),
                new Bad("{\"deviceId\":\"verify-device-2\",\"timestamp\":\"yesterday\",\"seq\":902}", "bad-timestamp"));
    }

    private static BigDecimal temperature(long seq) {
        return BigDecimal.valueOf(180 + seq * 7 % 50, 1);
    }

    Instant start() {
        return start;
    }

    /** The start of period {@code n} (1, 2, 3, or 4 for the one after). */
    Instant periodStart(int n) {
        return start.plus(period.multipliedBy(n - 1));
    }

    /** Before the split: {@code P1} and {@code P2}, three of them twice, and the bad records. */
    List<Put> beforeSplit() {
        List<Put> puts = new ArrayList<>();
        p1.forEach(r -> puts.add(put(r)));
        for (Reading again : duplicates()) {
            puts.add(put(again));
        }
        bad.forEach(b -> puts.add(new Put(b.raw(), LOWER_HALF)));
        p2.forEach(r -> puts.add(put(r)));
        return puts;
    }

    /** After the split: {@code P3}, into both children, and two readings of the fourth period that close it. */
    List<Put> afterSplit() {
        List<Put> puts = new ArrayList<>(p3.stream().map(this::put).toList());
        p4.forEach(r -> puts.add(put(r)));
        return puts;
    }

    /** The readings put twice. */
    List<Reading> duplicates() {
        return List.of(p1.get(0), p1.get(5), p2.get(2));
    }

    /** The late reading: in {@code P1}, put once the job's watermark is past {@code P1}'s lateness. */
    Reading late() {
        return late;
    }

    Put latePut() {
        return put(late);
    }

    List<Reading> stored() {
        List<Reading> all = new ArrayList<>(p1);
        all.addAll(p2);
        all.addAll(p3);
        all.addAll(p4);
        return all;
    }

    /** The first reading of {@code P3}: the first one put after the split. */
    Reading firstAfterSplit() {
        return p3.get(0);
    }

    List<Bad> bad() {
        return bad;
    }

    int records() {
        return beforeSplit().size() + afterSplit().size() + 1;
    }

    private Put put(Reading r) {
        return new Put(r.json(), DEVICES.indexOf(r.device()) % 2 == 0 ? LOWER_HALF : UPPER_HALF);
    }
}
