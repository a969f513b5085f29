package io.periodtables.core.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class ItemAttributesTest {

    @Test
    void everyJsonTypeBecomesItsDynamoDbTypeAndNumbersKeepTheirText() throws Exception {
        Map<String, AttributeValue> attributes = ItemAttributes.ofJsonObject(
                "{\"s\":\"h\\u00e9llo\",\"big\":12345678901234567890.50,\"t\":-1.5e3,\"flag\":false,"
                        + "\"nested\":{\"deep\":{\"k\":\"v\"},\"n\":null},\"arr\":[1,\"a\",true,{\"x\":2}],\"gone\":null}");

        assertThat(attributes).containsOnlyKeys("s", "big", "t", "flag", "nested", "arr");
        assertThat(attributes.get("s")).isEqualTo(AttributeValue.fromS("héllo"));
        assertThat(attributes.get("big")).isEqualTo(AttributeValue.fromN("12345678901234567890.50"));
        assertThat(attributes.get("t")).isEqualTo(AttributeValue.fromN("-1.5e3"));
        assertThat(attributes.get("flag")).isEqualTo(AttributeValue.fromBool(false));
        assertThat(attributes.get("nested"))
                .isEqualTo(AttributeValue.fromM(
                        Map.of("deep", AttributeValue.fromM(Map.of("k", AttributeValue.fromS("v"))))));
        assertThat(attributes.get("arr"))
                .isEqualTo(AttributeValue.fromL(List.of(
                        AttributeValue.fromN("1"),
                        AttributeValue.fromS("a"),
                        AttributeValue.fromBool(true),
                        AttributeValue.fromM(Map.of("x", AttributeValue.fromN("2"))))));
    }

    @Test
    void nullFieldsAreOmittedButNullArrayElementsKeepTheirPlace() throws Exception {
        Map<String, AttributeValue> attributes =
                ItemAttributes.ofJsonObject("{\"a\":[null,1],\"b\":null,\"c\":{\"d\":null}}");

        assertThat(attributes).containsOnlyKeys("a", "c");
        assertThat(attributes.get("a").l()).containsExactly(AttributeValue.fromNul(true), AttributeValue.fromN("1"));
        assertThat(attributes.get("c").m()).isEmpty();
    }

    @Test
    void anythingButOneJsonObjectIsRefused() {
        assertThatThrownBy(() -> ItemAttributes.ofJsonObject("[{\"a\":1}]"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("expected a JSON object");
        assertThatThrownBy(() -> ItemAttributes.ofJsonObject("42")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> ItemAttributes.ofJsonObject("{\"a\":1} {\"b\":2}"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("after the JSON value");
        assertThatThrownBy(() -> ItemAttributes.ofJsonObject("{\"a\":")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> ItemAttributes.ofJsonObject("")).isInstanceOf(IOException.class);
    }

    @Test
    void anInputRecordIsOneObjectOrAnArrayOfObjects() throws Exception {
        assertThat(ItemAttributes.ofJsonObjects("{\"v\":1}")).containsExactly(Map.of("v", AttributeValue.fromN("1")));
        assertThat(ItemAttributes.ofJsonObjects("[{\"v\":1},{\"w\":\"x\"}]"))
                .containsExactly(Map.of("v", AttributeValue.fromN("1")), Map.of("w", AttributeValue.fromS("x")));
        assertThat(ItemAttributes.ofJsonObjects("[]")).isEmpty();

        assertThatThrownBy(() -> ItemAttributes.ofJsonObjects("[{\"v\":1},2]"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("expected an array of JSON objects");
        assertThatThrownBy(() -> ItemAttributes.ofJsonObjects("\"text\""))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("expected a JSON object or an array of them");
        assertThatThrownBy(() -> ItemAttributes.ofJsonObjects("[{\"v\":1}] 3")).isInstanceOf(IOException.class);
    }

    @Test
    void renderedJsonHasSortedKeysAndEveryTypeOfValue() {
        Map<String, AttributeValue> item = Map.of(
                "s", AttributeValue.fromS("x\"y"),
                "n", AttributeValue.fromN("-1.50"),
                "b", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {1, 2, 3})),
                "bool", AttributeValue.fromBool(true),
                "nul", AttributeValue.fromNul(true),
                "m", AttributeValue.fromM(Map.of("z", AttributeValue.fromN("1"), "a", AttributeValue.fromS("2"))),
                "l", AttributeValue.fromL(List.of(AttributeValue.fromN("1"), AttributeValue.fromNul(true))),
                "ss", AttributeValue.fromSs(List.of("p", "q")),
                "ns", AttributeValue.fromNs(List.of("1", "2.5")),
                "bs", AttributeValue.fromBs(List.of(SdkBytes.fromByteArray(new byte[] {(byte) 0xff}))));

        assertThat(ItemAttributes.toJson(item))
                .isEqualTo("{\"b\":\"AQID\",\"bool\":true,\"bs\":[\"/w==\"],"
                        + "\"l\":[1,null],\"m\":{\"a\":\"2\",\"z\":1},\"n\":-1.50,\"ns\":[1,2.5],\"nul\":null,"
                        + "\"s\":\"x\\\"y\",\"ss\":[\"p\",\"q\"]}");
    }

    @Test
    void numbersRenderInPlainNotationWithTheirValue() {
        Map<String, AttributeValue> item = Map.of(
                "a", AttributeValue.fromN("3E+1"),
                "b", AttributeValue.fromN("9.9E+2"),
                "c", AttributeValue.fromN("1.5E-7"),
                "d", AttributeValue.fromN("21.50"),
                "e", AttributeValue.fromNs(List.of("1E+3")),
                "f", AttributeValue.fromN("1e200"));

        assertThat(ItemAttributes.toJson(item))
                .isEqualTo("{\"a\":30,\"b\":990,\"c\":0.00000015,\"d\":21.50,\"e\":[1000],\"f\":1e200}");
    }

    @Test
    void aPayloadRendersBackToItsCanonicalJson() throws Exception {
        String canonical = "{\"a\":[1,\"b\",false],\"pos\":{\"x\":1.5,\"y\":-2},\"unit\":\"°C\"}";

        assertThat(ItemAttributes.toJson(ItemAttributes.ofJsonObject(canonical)))
                .isEqualTo(canonical);
    }
}
