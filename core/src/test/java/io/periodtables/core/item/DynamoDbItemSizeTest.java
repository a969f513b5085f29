package io.periodtables.core.item;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class DynamoDbItemSizeTest {

    @Test
    void developerGuideExampleIs23Bytes() {
        // DynamoDB Developer Guide, "Item sizes": shirt-color=R, shirt-size=M is 23 bytes.
        assertThat(DynamoDbItemSize.of(Map.of(
                        "shirt-color", AttributeValue.fromS("R"),
                        "shirt-size", AttributeValue.fromS("M"))))
                .isEqualTo(23);
    }

    @Test
    void stringsCountUtf8Bytes() {
        assertThat(DynamoDbItemSize.of(Map.of("é", AttributeValue.fromS("€😀"))))
                .isEqualTo(2 + 3 + 4);
    }

    @ParameterizedTest(name = "{0} takes {1} bytes")
    @CsvSource({
        "0, 1",
        "1, 2",
        "7, 2",
        "10, 2",
        "100, 2",
        "1000, 2",
        "12345, 4",
        "123456, 4",
        "1.5, 3",
        "0.05, 2",
        "0.001, 2",
        "-1, 3",
        "-12345, 5",
        "1500, 2",
        "1.5e3, 2",
        "12345678901234567890123456789012345678, 20"
    })
    void numbersTakeOneBytePerTwoSignificantDigitsPlusOne(String number, long bytes) {
        assertThat(DynamoDbItemSize.numberSize(number)).isEqualTo(bytes);
    }

    /** Plain decimals are sized from their digits; the rule spelled out with BigDecimal must agree. */
    @Test
    void plainDecimalsAreSizedLikeTheRuleSaysForAnyDigits() {
        Random random = new Random(18);
        for (int i = 0; i < 50_000; i++) {
            StringBuilder number = new StringBuilder(random.nextBoolean() ? "-" : "");
            appendDigits(number, random, 1 + random.nextInt(random.nextBoolean() ? 3 : 25));
            if (random.nextBoolean()) {
                appendDigits(number.append('.'), random, 1 + random.nextInt(random.nextBoolean() ? 3 : 25));
            }
            String text = number.toString();
            assertThat(DynamoDbItemSize.numberSize(text)).as(text).isEqualTo(byTheRule(text));
        }
        for (String text : List.of("5.", ".5", "-", "", "1e5", "1.2.3", "+1", "--1", "1-", "0x10")) {
            long expected;
            try {
                expected = byTheRule(text);
            } catch (NumberFormatException notANumber) {
                expected = text.length();
            }
            assertThat(DynamoDbItemSize.numberSize(text)).as(text).isEqualTo(expected);
        }
    }

    /** Digits biased to zeros, so leading, trailing and inner zeros all occur often. */
    private static void appendDigits(StringBuilder out, Random random, int count) {
        for (int i = 0; i < count; i++) {
            out.append(random.nextInt(3) == 0 ? (char) ('0' + random.nextInt(10)) : '0');
        }
    }

    private static long byTheRule(String text) {
        BigDecimal value = new BigDecimal(text).stripTrailingZeros();
        if (value.signum() == 0) {
            return 1;
        }
        int pointPosition = value.precision() - value.scale();
        int aligned = value.precision() + (Math.floorMod(pointPosition, 2) == 1 ? 1 : 0);
        return (aligned + 1) / 2 + 1 + (value.signum() < 0 ? 1 : 0);
    }

    @Test
    void booleansAndNullsTakeOneByte() {
        assertThat(DynamoDbItemSize.of(Map.of("b", AttributeValue.fromBool(true), "n", AttributeValue.fromNul(true))))
                .isEqualTo(1 + 1 + 1 + 1);
    }

    @Test
    void binariesCountTheirBytes() {
        assertThat(DynamoDbItemSize.of(Map.of("raw", AttributeValue.fromB(SdkBytes.fromByteArray(new byte[10])))))
                .isEqualTo(3 + 10);
    }

    @Test
    void listsAndMapsAddThreeBytesPlusOnePerElement() {
        assertThat(DynamoDbItemSize.valueSize(AttributeValue.fromL(List.of()))).isEqualTo(3);
        assertThat(DynamoDbItemSize.valueSize(AttributeValue.fromM(Map.of()))).isEqualTo(3);
        assertThat(DynamoDbItemSize.valueSize(
                        AttributeValue.fromL(List.of(AttributeValue.fromS("ab"), AttributeValue.fromBool(true)))))
                .isEqualTo(3 + (1 + 2) + (1 + 1));
        assertThat(DynamoDbItemSize.valueSize(AttributeValue.fromM(Map.of(
                        "k", AttributeValue.fromS("v"),
                        "inner", AttributeValue.fromL(List.of(AttributeValue.fromN("1")))))))
                .isEqualTo(3 + (1 + 1 + 1) + (1 + 5 + (3 + 1 + 2)));
    }
}
