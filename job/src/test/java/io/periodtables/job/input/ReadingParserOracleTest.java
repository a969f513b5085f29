package io.periodtables.job.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.Rejection;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The streaming {@link ReadingParser} against the tree parser it replaced ({@link TreeReadingParser}):
 * for generated records full of what JSON allows and DynamoDB does not — duplicate keys, nulls,
 * reserved and empty keys, every number form, escapes, deep nesting, arrays with non-objects,
 * trailing and truncated text — both yield the same readings and the same rejections, byte for
 * byte (reason, message, raw, origin), so stored items and rejected-table keys do not change.
 */
class ReadingParserOracleTest {

    private static final long NOW = Instant.parse("2026-11-22T14:00:00Z").toEpochMilli();
    private static final String[] NAMES = {
        "a", "b", "B", "aa", "é", "", "pk", "sk", "ttl", "x y", "deviceId", "timestamp", "eventId", "v"
    };
    private static final String[] NUMBERS = {
        "0",
        "-0",
        "7",
        "-12",
        "1763819101123",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890123456789",
        "12345678901234567890123456789012345678",
        "1.50",
        "100.0",
        "0.0",
        "-0.0",
        "0e5",
        "1e2",
        "1E+2",
        "1.0e-5",
        "21.25",
        "1e200",
        "-1e-200",
        "1e-130",
        "1e126",
        "9.9999999999999999999999999999999999999E+125",
        "123456789012345678901234567890123456789.5",
        "0.000",
        "22.85",
        "-0.50",
        "1500.00",
        "10.0",
        "12.000",
        "-0.000",
        "0.0000015",
        "0.00000015",
        "1234567890123456789012345678901234567.5"
    };
    private static final String[] STRINGS = {
        "\"\"",
        "\"d\"",
        "\"dev-1\"",
        "\"a#b/../\\\"q\\u0001\"",
        "\"\\ud800\"",
        "\"\\ud83d\\ude00 ü\"",
        "\"line\\nbreak\"",
        "\"\\/slash\"",
        "\"\\t\\b\\f\\r\\u001f\\u007f\\u2028\\u0000\"",
        "\"\\\\ \\\"\\u00e9\\udfff\""
    };
    private static final String[] TIMES = {
        "1763819101123",
        "1763819101",
        "1.763819101123e12",
        "true",
        "null",
        "\"yesterday\"",
        "\"2026-11-22T13:45:01.123Z\"",
        "\"2026-11-22T14:45:01+01:00\"",
        "\"2026-11-22T16:00:00Z\"",
        "\"+10000-01-01T00:00:00Z\"",
        "\"0001-01-01T00:00:00Z\"",
        "99999999999999999999",
        "{}",
        "[1]",
        "\"\""
    };

    private final Random random = new Random(18);

    @Test
    void streamingParserMatchesTheTreeParserOnGeneratedRecords() {
        PeriodTablesConfig plain = ConfigLoader.fromMap(Map.of("tables.shards", "4"), true);
        PeriodTablesConfig withTtl = ConfigLoader.fromMap(Map.of("tables.ttl", "P30D"), true);
        for (PeriodTablesConfig config : List.of(plain, withTtl)) {
            ReadingParser streaming = new ReadingParser(config);
            TreeReadingParser tree = new TreeReadingParser(config);
            for (int i = 0; i < 2500; i++) {
                byte[] raw = record().getBytes(StandardCharsets.UTF_8);
                if (random.nextInt(200) == 0) {
                    raw[random.nextInt(raw.length)] = (byte) 0xC3; // maybe not UTF-8 any more
                }
                assertSame(raw, tree.parse(raw, "s/" + i, NOW), streaming.parse(raw, "s/" + i, NOW));
            }
        }
    }

    private static void assertSame(byte[] raw, ReadingParser.Result expected, ReadingParser.Result actual) {
        String input = new String(raw, StandardCharsets.UTF_8);
        assertThat(actual.readings).as(input).isEqualTo(expected.readings);
        assertThat(actual.rejections.stream()
                        .map(ReadingParserOracleTest::describe)
                        .toList())
                .as(input)
                .isEqualTo(expected.rejections.stream()
                        .map(ReadingParserOracleTest::describe)
                        .toList());
    }

    private static String describe(Rejection r) {
        return r.reason() + "|" + r.message() + "|" + java.util.HexFormat.of().formatHex(r.raw()) + "|" + r.rawBytes()
                + "|" + r.arrivedAtMillis() + "|" + r.origin();
    }

    private String record() {
        int kind = random.nextInt(100);
        if (kind < 60) {
            return ws() + reading(0) + ws();
        } else if (kind < 80) {
            List<String> elements = new ArrayList<>();
            for (int i = random.nextInt(5); i > 0; i--) {
                elements.add(random.nextInt(4) == 0 ? value(2) : reading(1));
            }
            return "[" + ws() + String.join("," + ws(), elements) + ws() + "]";
        } else if (kind < 85) {
            return pick(new String[] {
                "", "  ", "\n", "null", "42", "\"s\"", "true", "[]", "[ ]", "{}", "{} {}", "{} x", "[1] 2", "{\"a\":1}]"
            });
        } else if (kind < 92) {
            String r = reading(0);
            return r.substring(0, random.nextInt(r.length())); // truncated
        } else {
            int depth = 30 + random.nextInt(6);
            String open = "[".repeat(depth - 1);
            return "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"v\":" + open + "1" + "]".repeat(depth - 1) + "}";
        }
    }

    private String reading(int depth) {
        List<String> fields = new ArrayList<>();
        if (random.nextInt(10) > 0) {
            fields.add(
                    "\"deviceId\":" + (random.nextInt(6) > 0 ? "\"dev-" + random.nextInt(9) + "\"" : value(depth + 1)));
        }
        if (random.nextInt(10) > 0) {
            fields.add("\"timestamp\":" + (random.nextInt(3) > 0 ? TIMES[0] : pick(TIMES)));
        }
        if (random.nextInt(4) == 0) {
            fields.add("\"eventId\":" + pick(new String[] {"\"e-1\"", "\"\"", "5", "null", "\"e-2\""}));
        }
        if (random.nextInt(60) == 0) {
            fields.add("\"deviceId\":\"" + "x".repeat(2050) + "\"");
        }
        for (int i = random.nextInt(5); i > 0; i--) {
            fields.add(quoted(pick(NAMES)) + ":" + value(depth + 1));
        }
        if (random.nextInt(5) == 0 && !fields.isEmpty()) {
            fields.add(fields.get(random.nextInt(fields.size()))); // a duplicate key
        }
        Collections.shuffle(fields, random);
        return "{" + ws() + String.join("," + ws(), fields) + ws() + "}";
    }

    private String value(int depth) {
        int kind = random.nextInt(depth > 3 ? 7 : 10);
        return switch (kind) {
            case 0, 1 -> pick(NUMBERS);
            case 2, 3 -> pick(STRINGS);
            case 4 -> pick(new String[] {"true", "false"});
            case 5, 6 -> "null";
            case 7 -> {
                List<String> fields = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    fields.add(quoted(pick(NAMES)) + ":" + ws() + value(depth + 1));
                }
                yield "{" + String.join(",", fields) + "}";
            }
            default -> {
                List<String> elements = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    elements.add(value(depth + 1));
                }
                yield "[" + String.join("," + ws(), elements) + "]";
            }
        };
    }

    private String ws() {
        return pick(new String[] {"", "", "", " ", "\n\t"});
    }

    private static String quoted(String name) {
        return "\"" + name + "\"";
    }

    private String pick(String[] options) {
        return options[random.nextInt(options.length)];
    }
}
