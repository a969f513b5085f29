package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.job.input.ReadingParser;
import io.periodtables.model.Reading;
import io.periodtables.model.Rejection;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Security property: no table name is ever built from record content. Thousands of random
 * records (hostile device ids: table-name lookalikes, path and injection strings, separators,
 * quotes, control characters, very long and non-ASCII ids; timestamps across years 0001-9999,
 * as text or millis) under random configurations (every period kind, zones east and west of
 * UTC, random prefixes) go through the job's parser; every table name computed for what comes
 * out is {@code <prefix>_(<label>|late_yyyy-MM|rejected)}, reads back to a period containing
 * the reading, and never contains the device id.
 */
class TableNamesFromRecordContentTest {
    private static final String[] PERIODS = {"PT15M", "PT1H", "PT6H", "P1D", "P1W", "P1M"};
    private static final String[] ZONES = {
        "UTC", "Europe/Berlin", "America/New_York", "Pacific/Kiritimati", "Asia/Kolkata"
    };
    private static final String[] HOSTILE = {
        "readings_2025-06-01",
        "readings_rejected",
        "readings_late_2025-06",
        "x_2025-W23",
        "../../etc/passwd",
        "..",
        "/",
        "a/b\\c",
        "#",
        "dev#1",
        "dev#",
        "\"; DROP TABLE readings; --",
        "' OR '1'='1",
        "${jndi:ldap://x/a}",
        "%s%n",
        "\u0000",
        "\t\n\r",
        "\u001b[31mred",
        "\u202eevil",
        "温度计",
        "🌡️",
        " ",
        "null",
        "undefined",
        "arn:aws:dynamodb:us-east-1:123456789012:table/readings_2025-06-01",
        "readings",
        "_",
        "-",
        "."
    };
    private static final Map<String, String> LABELS = Map.of(
            "PT15M",
            "\\d{4}-\\d{2}-\\d{2}T\\d{4}",
            "PT1H",
            "\\d{4}-\\d{2}-\\d{2}T\\d{4}",
            "PT6H",
            "\\d{4}-\\d{2}-\\d{2}T\\d{4}",
            "P1D",
            "\\d{4}-\\d{2}-\\d{2}",
            "P1W",
            "\\d{4}-W\\d{2}",
            "P1M",
            "\\d{4}-\\d{2}");

    private final Random random = new Random(20261122L);

    @Test
    void everyTableNameOfRandomHostileRecordsFollowsTheNamingRule() {
        int readings = 0;
        int rejections = 0;
        for (int round = 0; round < 25; round++) {
            String period = PERIODS[random.nextInt(PERIODS.length)];
            String prefix = randomPrefix();
            PeriodTablesConfig config = ConfigLoader.fromMap(
                    Map.of(
                            "tables.prefix",
                            prefix,
                            "tables.period",
                            period,
                            "tables.zone",
                            ZONES[random.nextInt(ZONES.length)],
                            "tables.shards",
                            String.valueOf(1 + random.nextInt(8)),
                            "rotation.lead",
                            "PT1M",
                            "window.allowed-lateness",
                            "PT1M"),
                    false);
            TableNaming naming = config.naming();
            Pattern rule = Pattern.compile(
                    Pattern.quote(prefix) + "_(" + LABELS.get(period) + "|late_\\d{4}-\\d{2}|rejected)");
            ReadingParser parser = new ReadingParser(config);
            List<Reading> out = new ArrayList<>();
            List<Rejection> rejected = new ArrayList<>();
            for (int i = 0; i < 160; i++) {
                parser.parse(randomRecord(), "property", Instant.now().toEpochMilli(), out::add, rejected::add);
            }
            for (Reading reading : out) {
                String table = tableOf(naming, reading);
                assertThat(table).as("table of %s", reading).matches(rule);
                if (reading.deviceId().length() >= 3) {
                    assertThat(table).doesNotContain(reading.deviceId());
                }
                naming.parse(table)
                        .filter(ref -> ref.period() != null)
                        .ifPresent(ref -> assertThat(ref.period().contains(Instant.ofEpochMilli(reading.eventMillis())))
                                .as("%s holds %s", table, reading)
                                .isTrue());
            }
            assertThat(naming.lateTable(Instant.now())).matches(rule);
            assertThat(naming.rejectedTable()).matches(rule);
            readings += out.size();
            rejections += rejected.size();
        }
        assertThat(readings).as("readings checked").isGreaterThan(2000);
        assertThat(rejections).as("rejections made").isGreaterThan(300);
    }

    /** The period table the sink would write to, or the rejected table when no table has a name for it. */
    private static String tableOf(TableNaming naming, Reading reading) {
        try {
            return naming.periodTableOf(Instant.ofEpochMilli(reading.eventMillis()));
        } catch (IllegalArgumentException noLabel) {
            return naming.rejectedTable();
        }
    }

    private byte[] randomRecord() {
        String device = randomDevice();
        String time = randomTimestamp();
        String json = random.nextInt(20) == 0
                ? "[" + reading(device, time) + "," + reading(randomDevice(), randomTimestamp()) + "]"
                : reading(device, time);
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private String reading(String device, String time) {
        return "{\"deviceId\":" + TestInput.quote(device) + ",\"timestamp\":" + time + ",\"v\":" + random.nextInt(100)
                + "}";
    }

    private String randomDevice() {
        switch (random.nextInt(4)) {
            case 0:
                return HOSTILE[random.nextInt(HOSTILE.length)];
            case 1:
                return HOSTILE[random.nextInt(HOSTILE.length)]
                        + HOSTILE[random.nextInt(HOSTILE.length)]
                        + random.nextInt(1000);
            case 2:
                StringBuilder chars = new StringBuilder();
                int length = 1 + random.nextInt(random.nextInt(10) == 0 ? 3000 : 40);
                for (int i = 0; i < length; i++) {
                    chars.appendCodePoint(
                            random.nextInt(10) == 0 ? random.nextInt(0x2FFFF) : 0x20 + random.nextInt(0x5F));
                }
                return chars.toString().replaceAll("[\\ud800-\\udfff]", "x");
            default:
                return "dev-" + random.nextInt(50);
        }
    }

    private String randomTimestamp() {
        long millis = Instant.parse("0001-01-01T00:00:00Z").toEpochMilli()
                + (long) (random.nextDouble()
                        * (Instant.parse("9999-12-31T23:59:59Z").toEpochMilli()
                                - Instant.parse("0001-01-01T00:00:00Z").toEpochMilli()));
        if (random.nextBoolean()) {
            // Mostly recent readings, so that most are stored rather than too far in the future.
            millis = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli() + (long) (random.nextDouble() * 9e10);
        }
        return random.nextBoolean() ? String.valueOf(millis) : "\"" + Instant.ofEpochMilli(millis) + "\"";
    }

    private String randomPrefix() {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
        StringBuilder prefix = new StringBuilder();
        int length = 1 + random.nextInt(20);
        for (int i = 0; i < length; i++) {
            prefix.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return prefix.toString();
    }
}
