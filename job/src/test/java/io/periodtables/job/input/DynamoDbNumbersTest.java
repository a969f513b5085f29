package io.periodtables.job.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.math.BigDecimal;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** DynamoDB's number rules at their edges: 38 significant digits, magnitudes 1E-130 to 9.99…E+125. */
class DynamoDbNumbersTest {

    @ParameterizedTest
    @CsvSource({
        "0, true",
        "22.57, true",
        "-1, true",
        "1E-130, true",
        "1E-131, false",
        "-1E-130, true",
        "-1E-131, false",
        "9.9999999999999999999999999999999999999E+125, true",
        "-9.9999999999999999999999999999999999999E+125, true",
        "1E+126, false",
        "-1E+126, false",
        "12345678901234567890123456789012345678, true",
        "123456789012345678901234567890123456789, false",
        "1234567890123456789012345678901234567800, true",
        "1.2345678901234567890123456789012345678, true",
        "0.12345678901234567890123456789012345678, true",
        "0.123456789012345678901234567890123456789, false",
        "1.00000000000000000000000000000000000000000E-130, true",
        "1E+125, true",
        "99999999999999999999999999999999999999E+88, true",
        "99999999999999999999999999999999999999E+89, false"
    })
    void acceptsExactlyWhatDynamoDbStores(String number, boolean stored) {
        BigDecimal value = new BigDecimal(number);
        if (stored) {
            assertThatCode(() -> DynamoDbNumbers.check(value)).doesNotThrowAnyException();
        } else {
            assertThatCode(() -> DynamoDbNumbers.check(value)).isInstanceOf(CanonicalPayload.BadValueException.class);
        }
        assertThat(stored)
                .isEqualTo(value.signum() == 0
                        || (value.stripTrailingZeros().precision() <= 38
                                && value.abs().compareTo(new BigDecimal("1E-130")) >= 0
                                && value.abs().compareTo(new BigDecimal("9.9999999999999999999999999999999999999E+125"))
                                        <= 0));
    }
}
