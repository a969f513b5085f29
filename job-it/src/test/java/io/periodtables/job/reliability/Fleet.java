package io.periodtables.job.reliability;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;

/**
 * The standard input of the fault cases: six devices reading every three minutes over three
 * hourly periods (08:00-11:00 UTC on 2025-06-01), with every JSON type in the payload, an
 * exact duplicate, an {@code eventId} reading sent twice with its instant written two ways, an
 * array record with a bad element, seven malformed records, a reading late past its period's
 * grace (late table) and one late within the grace (still its period table).
 */
final class Fleet {
    static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    static final int DEVICES = 6;
    static final Duration STEP = Duration.ofMinutes(3);
    static final int STEPS = 60;

    private Fleet() {}

    static TestInput standard() {
        TestInput input = new TestInput();
        for (int step = 0; step < STEPS; step++) {
            Instant t = T0.plus(STEP.multipliedBy(step));
            for (int d = 0; d < DEVICES; d++) {
                input.reading("dev-" + d, t.plusMillis(d * 1001L), payload(step, d));
            }
            extras(input, step);
        }
        return input;
    }

    /** Readings of one step as JSON members: numbers, booleans, and every tenth a map and a list. */
    static String payload(int step, int device) {
        String temp = new BigDecimal(180 + step * 7 + device).movePointLeft(1).toPlainString();
        String members = "\"temp\":" + temp + ",\"ok\":" + (step % 2 == 0);
        if ((step + device) % 10 == 0) {
            members += ",\"meta\":{\"fw\":\"1." + device + "\",\"rssi\":-" + (60 + step) + "},\"tags\":[\"a\",\"b\","
                    + step + "]";
        }
        return members;
    }

    private static void extras(TestInput input, int step) {
        switch (step) {
            case 2 -> input.again(input.size() - 3);
            case 10 -> {
                Instant t = T0.plus(Duration.ofMinutes(31));
                input.json(
                        "{\"deviceId\":\"dev-1\",\"timestamp\":\"2025-06-01T10:31:00+02:00\",\"eventId\":\"e-831\",\"temp\":19.5}");
                input.json("{\"eventId\":\"e-831\",\"temp\":19.5,\"timestamp\":" + t.toEpochMilli()
                        + ",\"deviceId\":\"dev-1\"}");
            }
            case 15 ->
                input.json(
                        "[{\"deviceId\":\"dev-2\",\"timestamp\":\"2025-06-01T08:46:30Z\",\"temp\":17.25},"
                                + "{\"deviceId\":\"dev-3\",\"timestamp\":\"2025-06-01T08:46:31Z\",\"door\":\"open\"},\"oops\"]");
            case 20 -> {
                input.json("not json");
                input.json("42");
                input.json("{\"deviceId\":\"\",\"timestamp\":\"2025-06-01T09:00:00Z\",\"temp\":1}");
                input.json("{\"deviceId\":\"dev-4\",\"timestamp\":\"yesterday\",\"temp\":1}");
                input.json("{\"deviceId\":\"dev-4\",\"timestamp\":\"2999-01-01T00:00:00Z\",\"temp\":1}");
                input.json("[]");
                input.bytes(new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'});
            }
            case 40 -> {
                // Watermark near 10:00: 08:30 is past its period's grace (09:05), 09:57 is within it.
                input.reading("dev-5", Instant.parse("2025-06-01T08:30:00Z"), "\"temp\":5,\"late\":true");
                input.reading("dev-0", Instant.parse("2025-06-01T09:57:00Z"), "\"temp\":6,\"grace\":true");
            }
            default -> {}
        }
    }
}
