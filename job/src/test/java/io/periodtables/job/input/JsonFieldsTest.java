package io.periodtables.job.input;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonFieldsTest {

    /** What the payload holds for a decimal: BigDecimal's text of the value without trailing zeros. */
    private static String byBigDecimal(String number) {
        BigDecimal value = new BigDecimal(number);
        return value.signum() == 0
                ? BigDecimal.ZERO.toString()
                : value.stripTrailingZeros().toString();
    }

    @Test
    void plainDecimalsReadOffTheirDigitsAreWhatBigDecimalWrites() {
        Random random = new Random(18);
        int plain = 0;
        for (int i = 0; i < 100_000; i++) {
            StringBuilder number = new StringBuilder(random.nextBoolean() ? "-" : "");
            int integerDigits = 1 + random.nextInt(random.nextBoolean() ? 3 : 30);
            number.append(random.nextInt(4) == 0 ? '0' : (char) ('1' + random.nextInt(9)));
            if (number.charAt(number.length() - 1) != '0') {
                appendDigits(number, random, integerDigits - 1);
            }
            appendDigits(number.append('.'), random, 1 + random.nextInt(random.nextBoolean() ? 4 : 30));
            String text = number.toString();
            String fast = JsonFields.plainDecimal(text);
            if (fast != null) {
                plain++;
                assertThat(fast).as(text).isEqualTo(byBigDecimal(text));
                assertThat(new BigDecimal(fast).precision()).as(text).isLessThanOrEqualTo(38);
            }
        }
        assertThat(plain).isGreaterThan(50_000);
    }

    @Test
    void readingsUsualNumbersTakeTheFastPathAndTheRestDoNot() {
        for (String number : List.of("22.85", "-0.5", "0.000001", "1.0", "-0.000", "99.990", "0.0000012")) {
            assertThat(JsonFields.plainDecimal(number)).as(number).isEqualTo(byBigDecimal(number));
        }
        // BigDecimal writes these with an exponent, or they are not plain decimals
        for (String number : List.of(
                "10.0",
                "1500.00",
                "0.0000001",
                "1e5",
                "1.5E+3",
                "5",
                "-",
                ".5",
                "5.",
                "1.2.3",
                "01.5",
                "123456789012345678901234567890123456789.5")) {
            assertThat(JsonFields.plainDecimal(number)).as(number).isNull();
        }
    }

    /** Digits biased to zeros, so trailing and leading zeros occur often. */
    private static void appendDigits(StringBuilder out, Random random, int count) {
        for (int i = 0; i < count; i++) {
            out.append(random.nextInt(3) == 0 ? (char) ('0' + random.nextInt(10)) : '0');
        }
    }
}
