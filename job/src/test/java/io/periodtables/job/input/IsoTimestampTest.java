package io.periodtables.job.input;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link IsoTimestamp} accepts and refuses exactly what {@link OffsetDateTime#parse} does, with the same millis. */
class IsoTimestampTest {
    private static final String[] OFFSETS = {
        "Z",
        "z",
        "+00:00",
        "-00:00",
        "+01:00",
        "-05:30",
        "+17:59",
        "+18:00",
        "-18:00",
        "+18:01",
        "+01:60",
        "+1:00",
        "+0100",
        "+01",
        "+01:00:00",
        "",
        "Z ",
        "+01:0a"
    };
    private static final String[] FRACTIONS = {
        "", ".", ".1", ".12", ".123", ".1234", ".000000001", ".999999999", ".1234567891", ".5a"
    };

    @Test
    void agreesWithOffsetDateTimeOnTimestampsAndNearMisses() {
        Random random = new Random(18);
        int accepted = 0;
        for (int i = 0; i < 10_000; i++) {
            String text = String.format(
                            "%04d-%02d-%02dT%02d:%02d:%02d",
                            random.nextInt(10_000),
                            random.nextInt(14),
                            random.nextInt(33),
                            random.nextInt(26),
                            random.nextInt(62),
                            random.nextInt(62))
                    + FRACTIONS[random.nextInt(FRACTIONS.length)]
                    + OFFSETS[random.nextInt(OFFSETS.length)];
            if (i % 5 == 0) {
                char[] chars = text.toCharArray();
                chars[random.nextInt(chars.length)] = "0123456789-:T.Zt+ x٣".charAt(random.nextInt(20));
                text = new String(chars);
            } else if (i % 5 == 1) {
                text = text.substring(0, random.nextInt(text.length() + 1));
            }
            accepted += outcome(text).startsWith("millis") ? 1 : 0;
            assertThat(outcome(text)).as(text).isEqualTo(expected(text));
        }
        assertThat(accepted).as("valid timestamps among the cases").isGreaterThan(800);
    }

    @Test
    void agreesOnTheFormsDevicesSend() {
        for (String text : new String[] {
            "2026-11-22T13:45:01.123Z",
            "2026-11-22T13:45:01Z",
            "2024-02-29T23:59:59.999+01:00",
            "2023-02-29T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999-17:59",
            "1969-12-31T23:59:59.9995Z",
            "2026-11-22T13:45Z",
            "2026-11-22t13:45:01z",
            "+2026-11-22T13:45:01Z"
        }) {
            assertThat(outcome(text)).as(text).isEqualTo(expected(text));
        }
    }

    private static String outcome(String text) {
        try {
            return "millis " + IsoTimestamp.epochMillis(text);
        } catch (RuntimeException e) {
            return "refused " + e.getClass().getSimpleName();
        }
    }

    private static String expected(String text) {
        try {
            return "millis " + OffsetDateTime.parse(text).toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            return "refused " + e.getClass().getSimpleName();
        }
    }
}
