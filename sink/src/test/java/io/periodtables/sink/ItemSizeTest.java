package io.periodtables.sink;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ItemSizeTest {

    @Test
    void developerGuideExampleIs23Bytes() {
        // DynamoDB Developer Guide, "Item sizes": shirt-color=R, shirt-size=M is 23 bytes.
        assertThat(ItemSize.of(Map.of(
                "shirt-color", AttributeValue.fromS("R"),
                "shirt-size", AttributeValue.fromS("M")))).isEqualTo(23);
    }

    @Test
    void stringsCountUtf8Bytes() {
        assertThat(ItemSize.of(Map.of("é", AttributeValue.fromS("€😀")))).isEqualTo(2 + 3 + 4);
    }

    @Test
    void numbersTakeOneBytePerTwoSignificantDigitsPlusOne() {
        assertThat(ItemSize.numberSize("0")).isEqualTo(1);
        assertThat(ItemSize.numberSize("1")).isEqualTo(2);
        assertThat(ItemSize.numberSize("10")).isEqualTo(2);
        assertThat(ItemSize.numberSize("100")).isEqualTo(2);
        assertThat(ItemSize.numberSize("12345")).isEqualTo(4);
        assertThat(ItemSize.numberSize("123456")).isEqualTo(4);
        assertThat(ItemSize.numberSize("1.5")).isEqualTo(3);
        assertThat(ItemSize.numberSize("0.05")).isEqualTo(2);
        assertThat(ItemSize.numberSize("-1")).isEqualTo(3);
        assertThat(ItemSize.numberSize("1.5e3")).isEqualTo(ItemSize.numberSize("1500"));
        assertThat(ItemSize.numberSize("12345678901234567890123456789012345678")).isEqualTo(20);
    }

    @Test
    void booleansAndNullsTakeOneByte() {
        assertThat(ItemSize.of(Map.of("b", AttributeValue.fromBool(true), "n", AttributeValue.fromNul(true))))
                .isEqualTo(1 + 1 + 1 + 1);
    }

    @Test
    void binariesCountTheirBytes() {
        assertThat(ItemSize.of(Map.of("raw", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[10])))))
                .isEqualTo(3 + 10);
    }

    @Test
    void listsAndMapsAddThreeBytesPlusOnePerElement() {
        assertThat(ItemSize.valueSize(AttributeValue.fromL(List.of()))).isEqualTo(3);
        assertThat(ItemSize.valueSize(AttributeValue.fromM(Map.of()))).isEqualTo(3);
        assertThat(ItemSize.valueSize(AttributeValue.fromL(List.of(
                AttributeValue.fromS("ab"), AttributeValue.fromBool(true))))).isEqualTo(3 + (1 + 2) + (1 + 1));
        assertThat(ItemSize.valueSize(AttributeValue.fromM(Map.of(
                "k", AttributeValue.fromS("v"),
                "inner", AttributeValue.fromL(List.of(AttributeValue.fromN("1")))))))
                .isEqualTo(3 + (1 + 1 + 1) + (1 + 5 + (3 + 1 + 2)));
    }
}
