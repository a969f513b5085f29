package io.periodtables.core.item;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.Reading;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ReadingItems#writeUnits} counts what the sink will write: for payloads of every JSON
 * kind, the small and the large, it equals the write units of the item the sink builds, and the
 * bound it uses to skip building small items holds for each payload.
 */
class ReadingItemsTest {
    private static final long T = Instant.parse("2026-11-22T13:45:01.123Z").toEpochMilli();
    private static final String[] TEXTS = {"", "a", "é", "€", "😀", "\n", "\u0001", "\"", "\\", "ab€😀é"};
    private static final JsonFactory JSON = new JsonFactory();

    @ParameterizedTest
    @CsvSource({"1,", "4,P30D", "100,P3650D"})
    void writeUnitsAreThoseOfTheItemTheSinkBuilds(int shards, String ttl) throws IOException {
        ReadingItems items = new ReadingItems(
                ttl == null
                        ? hourly4Shards("tables.shards", String.valueOf(shards))
                        : hourly4Shards("tables.shards", String.valueOf(shards), "tables.ttl", ttl));
        Random random = new Random(shards);
        int small = 0;
        for (int i = 0; i < 1_500; i++) {
            String payload = payload(random, i % 7 == 0 ? 150 : 12);
            Reading reading = new Reading(TEXTS[random.nextInt(TEXTS.length)] + "dev-" + i, T + i, null, payload);

            long bytes = DynamoDbItemSize.of(items.item(reading));
            assertThat(items.writeUnits(reading)).as(payload).isEqualTo((bytes + 1023) / 1024);
            assertThat(DynamoDbItemSize.of(ItemAttributes.ofJsonObject(payload)))
                    .as("a payload costs at most twice its JSON text: %s", payload)
                    .isLessThanOrEqualTo(2L * payload.getBytes(StandardCharsets.UTF_8).length);
            small += bytes <= 1024 ? 1 : 0;
        }
        assertThat(small).as("both sides of the 1 KB line are tried").isBetween(750, 1_480);
    }

    @ParameterizedTest
    @CsvSource({"[]", "1", "true", "{}", "[1]"})
    void payloadsThatCostDynamoDbTheMostPerCharAreCountedExactlyAroundOneKb(String element) {
        ReadingItems items = new ReadingItems(hourly4Shards("tables.ttl", "P30D"));
        for (int n = 1; n < 400; n++) {
            String payload = "{\"l\":[" + String.join(",", java.util.Collections.nCopies(n, element)) + "]}";
            Reading reading = new Reading("dev-1", T, null, payload);

            assertThat(items.writeUnits(reading))
                    .as(payload)
                    .isEqualTo((DynamoDbItemSize.of(items.item(reading)) + 1023) / 1024);
        }
    }

    @ParameterizedTest
    @CsvSource({"{\"pk\":1}", "{\"sk\":\"x\"}", "{\"ttl\":5}"})
    void aPayloadNamingAKeyAttributeCountsNothing(String payload) {
        ReadingItems items = new ReadingItems(hourly4Shards("tables.ttl", "P30D"));

        assertThat(items.writeUnits(new Reading("dev-1", T, null, payload))).isZero();
    }

    /** A JSON object of random content; {@code budget} bounds its number of values. */
    private static String payload(Random random, int budget) throws IOException {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(text)) {
            json.writeStartObject();
            int fields = random.nextInt(budget + 1);
            for (int f = 0; f < fields; f++) {
                json.writeFieldName("f" + f + TEXTS[random.nextInt(TEXTS.length)]);
                value(json, random, 3);
            }
            json.writeEndObject();
        }
        return text.toString();
    }

    private static void value(JsonGenerator json, Random random, int depth) throws IOException {
        switch (random.nextInt(depth > 0 ? 8 : 6)) {
            case 0 -> json.writeString(TEXTS[random.nextInt(TEXTS.length)] + TEXTS[random.nextInt(TEXTS.length)]);
            case 1 -> json.writeNumber(random.nextInt(20) - 10);
            case 2 ->
                json.writeNumber(random.nextBoolean() ? "-0.5e-7" : random.nextLong() + "." + random.nextInt(1000));
            case 3 -> json.writeBoolean(random.nextBoolean());
            case 4 -> json.writeNull();
            case 5 -> json.writeNumber("1e" + random.nextInt(120));
            case 6 -> {
                json.writeStartArray();
                for (int i = random.nextInt(4); i > 0; i--) {
                    value(json, random, depth - 1);
                }
                json.writeEndArray();
            }
            default -> {
                json.writeStartObject();
                for (int i = random.nextInt(4); i > 0; i--) {
                    json.writeFieldName("k" + i);
                    value(json, random, depth - 1);
                }
                json.writeEndObject();
            }
        }
    }

    /** Hourly tables, 4 shards, and the given keys and values. */
    private static PeriodTablesConfig hourly4Shards(String... keyValues) {
        Map<String, String> values = new HashMap<>(Map.of("tables.period", "PT1H", "tables.shards", "4"));
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigLoader.fromMap(values, true);
    }
}
