package io.periodtables.job.input;

import io.periodtables.model.RejectReason;
import java.math.BigDecimal;

/**
 * DynamoDB's number rule: up to 38 significant digits, magnitude between 1E-130 and
 * 9.9999999999999999999999999999999999999E+125 (or zero). Anything else is refused by
 * DynamoDB, so it is refused here, before it can poison a batch.
 */
public final class DynamoDbNumbers {
    private DynamoDbNumbers() {}

    /**
     * {@code value} when DynamoDB stores it; the magnitude rule is the leading digit's decimal exponent, -130 to 125.
     */
    static BigDecimal check(BigDecimal value) throws CanonicalPayload.BadValueException {
        if (value.signum() == 0) {
            return value;
        }
        BigDecimal significant = value.precision() > 38 ? value.stripTrailingZeros() : value;
        if (significant.precision() > 38) {
            throw new CanonicalPayload.BadValueException(
                    RejectReason.BAD_NUMBER, "number " + abbreviate(value) + " has more than 38 significant digits");
        }
        int exponent = significant.precision() - significant.scale() - 1;
        if (exponent > 125 || exponent < -130) {
            throw new CanonicalPayload.BadValueException(
                    RejectReason.BAD_NUMBER,
                    "number " + abbreviate(value) + " is outside DynamoDB's range 1E-130 .. 1E+126");
        }
        return value;
    }

    private static String abbreviate(BigDecimal value) {
        String s = value.toString();
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }
}
