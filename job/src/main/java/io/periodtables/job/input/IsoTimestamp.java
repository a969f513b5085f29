package io.periodtables.job.input;

import java.time.LocalDate;
import java.time.Month;
import java.time.OffsetDateTime;
import java.time.Year;

/**
 * Epoch milliseconds of an ISO-8601 timestamp with an offset, exactly as
 * {@code OffsetDateTime.parse(text).toInstant().toEpochMilli()} gives them, including its
 * exceptions. The form devices send most, {@code 2026-11-22T13:45:01.123Z} or with a
 * {@code +01:00} offset, is read digit by digit, which costs a tenth of the formatter; anything
 * else (lower case, no seconds, other offset forms, out-of-range fields) goes to
 * {@link OffsetDateTime#parse}, so both paths accept and refuse the same texts.
 */
public final class IsoTimestamp {
    private static final int SECONDS_PER_DAY = 86_400;

    private IsoTimestamp() {}

    /** @throws RuntimeException (a {@code DateTimeException}) when {@code text} is not such a timestamp */
    static long epochMillis(String text) {
        long millis = common(text);
        return millis != Long.MIN_VALUE
                ? millis
                : OffsetDateTime.parse(text).toInstant().toEpochMilli();
    }

    /**
     * The millis of {@code uuuu-MM-ddTHH:mm:ss[.f…]} followed by {@code Z} or {@code ±HH:MM}, else
     * {@link Long#MIN_VALUE}.
     */
    private static long common(String s) {
        int n = s.length();
        if (n < 20
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':') {
            return Long.MIN_VALUE;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if ((year | month | day | hour | minute | second) < 0
                || month < 1
                || month > 12
                || day < 1
                || day > Month.of(month).length(Year.isLeap(year))
                || hour > 23
                || minute > 59
                || second > 59) {
            return Long.MIN_VALUE;
        }
        int at = 19;
        int nanos = 0;
        if (s.charAt(at) == '.') {
            int start = ++at;
            while (at < n && at - start < 9 && isDigit(s.charAt(at))) {
                nanos = nanos * 10 + (s.charAt(at++) - '0');
            }
            if (at == start) {
                return Long.MIN_VALUE;
            }
            for (int scale = at - start; scale < 9; scale++) {
                nanos *= 10;
            }
        }
        int offsetSeconds;
        if (at == n - 1 && s.charAt(at) == 'Z') {
            offsetSeconds = 0;
        } else if (at == n - 6 && (s.charAt(at) == '+' || s.charAt(at) == '-') && s.charAt(at + 3) == ':') {
            int offsetHours = digits(s, at + 1, 2);
            int offsetMinutes = digits(s, at + 4, 2);
            if ((offsetHours | offsetMinutes) < 0 || offsetHours > 17 || offsetMinutes > 59) {
                return Long.MIN_VALUE;
            }
            offsetSeconds = (s.charAt(at) == '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
        } else {
            return Long.MIN_VALUE;
        }
        long epochSecond = LocalDate.of(year, month, day).toEpochDay() * SECONDS_PER_DAY
                + hour * 3600
                + minute * 60
                + second
                - offsetSeconds;
        return epochSecond * 1000 + nanos / 1_000_000;
    }

    /** The value of {@code count} ASCII digits at {@code from}, or -1. */
    private static int digits(String s, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (!isDigit(c)) {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
