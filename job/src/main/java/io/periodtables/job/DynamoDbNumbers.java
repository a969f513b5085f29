package io.periodtables.job;

import io.periodtables.model.RejectReason;
import java.math.BigDecimal;

/**
 * DynamoDB's number rule: up to 38 significant digits, magnitude between 1E-130 and
 * 9.9999999999999999999999999999999999999E+125 (or zero). Anything else is refused by
 * DynamoDB, so it is refused here, before it can poison a batch.
 */
final class DynamoDbNumbers {
    private static final BigDecimal MAX = new BigDecimal("9.9999999999999999999999999999999999999E+125");
    private static final BigDecimal MIN_POSITIVE = new BigDecimal("1E-130");

    private DynamoDbNumbers() {}

    static BigDecimal check(BigDecimal value) throws CanonicalPayload.BadValueException {
        if (value.signum() == 0) {
            return value;
        }
        // At most 38 digits with a decimal exponent in -130..125: within range (the usual case, checked cheaply).
        int exponent = value.precision() - value.scale() - 1;
        if (value.precision() <= 38 && exponent >= -130 && exponent <= 125) {
            return value;
        }
        BigDecimal abs = value.abs();
        if (value.stripTrailingZeros().precision() > 38) {
            throw new CanonicalPayload.BadValueException(RejectReason.BAD_NUMBER, "number " + abbreviate(value) + " has more than 38 significant digits");
        }
        if (abs.compareTo(MAX) > 0 || abs.compareTo(MIN_POSITIVE) < 0) {
            throw new CanonicalPayload.BadValueException(RejectReason.BAD_NUMBER, "number " + abbreviate(value) + " is outside DynamoDB's range 1E-130 .. 1E+126");
        }
        return value;
    }

    private static String abbreviate(BigDecimal value) {
        String s = value.toString();
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }
}
