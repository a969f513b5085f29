package io.periodtables.query.output;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.periodtables.query.StoredReading;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class ReadingOutputTest {

    private final StoredReading reading = StoredReading.of(
            "dev-1",
            "r_2026-11-22",
            3,
            Map.of(
                    "pk", AttributeValue.fromS("dev-1#3"),
                    "sk", AttributeValue.fromS("2026-11-22T13:45:01.000Z#9f3a2c1b"),
                    "ttl", AttributeValue.fromN("1800000000"),
                    "temp", AttributeValue.fromN("21.50"),
                    "pos", AttributeValue.fromM(Map.of("x", AttributeValue.fromN("1"))),
                    "tags", AttributeValue.fromL(List.of(AttributeValue.fromS("a"), AttributeValue.fromNul(true)))),
            true);

    @Test
    void jsonLineHasFixedKeysAndThePayloadAsStored() throws Exception {
        JsonNode line = new ObjectMapper().readTree(ReadingOutput.json(reading));

        assertThat(line.get("deviceId").asText()).isEqualTo("dev-1");
        assertThat(line.get("timestamp").asText()).isEqualTo("2026-11-22T13:45:01.000Z");
        assertThat(line.get("table").asText()).isEqualTo("r_2026-11-22");
        assertThat(line.get("shard").asInt()).isEqualTo(3);
        assertThat(line.get("sk").asText()).isEqualTo("2026-11-22T13:45:01.000Z#9f3a2c1b");
        assertThat(line.get("ttl").asLong()).isEqualTo(1_800_000_000L);
        assertThat(ReadingOutput.json(reading))
                .endsWith(",\"payload\":{\"pos\":{\"x\":1},\"tags\":[\"a\",null],\"temp\":21.50}}");
    }

    @Test
    void ttlIsPayloadWhenTheTablesHaveNoTtl() {
        StoredReading plain = StoredReading.of(
                "d",
                "r_2026-11-22",
                0,
                Map.of(
                        "pk", AttributeValue.fromS("d"),
                        "sk", AttributeValue.fromS("2026-11-22T13:45:01.000Z#9f3a2c1b"),
                        "ttl", AttributeValue.fromS("short")),
                false);

        assertThat(plain.ttl()).isNull();
        assertThat(plain.payloadJson()).isEqualTo("{\"ttl\":\"short\"}");
    }

    @Test
    void tableFormatAlignsColumnsUnderAHeaderAndNamesTheDevice() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        ReadingOutput.TABLE.printer(out, 14).accept(reading);

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
                .containsExactly(
                        "timestamp                 device            table           shard  payload",
                        "2026-11-22T13:45:01.000Z  dev-1             r_2026-11-22        3  {\"pos\":{\"x\":1},\"tags\":[\"a\",null],\"temp\":21.50}");
    }

    @Test
    void csvHasAColumnPerAttributeOfAnyReadingAndQuotesWhatNeedsIt() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        StoredReading other = StoredReading.of(
                "dev-1",
                "r_late_2026-11",
                0,
                Map.of(
                        "pk", AttributeValue.fromS("dev-1"),
                        "sk", AttributeValue.fromS("2026-11-22T13:45:02.000Z#00000001"),
                        "note", AttributeValue.fromS("cold, \"very\""),
                        "ok", AttributeValue.fromBool(true)),
                true);

        ReadingOutput.Printer printer = ReadingOutput.CSV.printer(out, 14);
        printer.accept(reading);
        printer.accept(other);
        assertThat(bytes.size()).as("CSV waits for every attribute").isZero();
        printer.finish();

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
                .containsExactly(
                        "timestamp,deviceId,table,shard,sk,ttl,note,ok,pos,tags,temp",
                        "2026-11-22T13:45:01.000Z,dev-1,r_2026-11-22,3,2026-11-22T13:45:01.000Z#9f3a2c1b,1800000000,,,"
                                + "\"{\"\"x\"\":1}\",\"[\"\"a\"\",null]\",21.50",
                        "2026-11-22T13:45:02.000Z,dev-1,r_late_2026-11,0,2026-11-22T13:45:02.000Z#00000001,,"
                                + "\"cold, \"\"very\"\"\",true,,,");
    }
}
