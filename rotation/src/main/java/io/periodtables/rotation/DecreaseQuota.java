package io.periodtables.rotation;

import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * When DynamoDB will accept the next capacity decrease of a table that was refused one: it
 * allows 4 decreases in a UTC day at any time, then one more whenever the last was an hour
 * ago, at most 27 a day. So: an hour after the last decrease when that is still ahead, the
 * next UTC day when 27 are used up, else the next full UTC hour (plus a little slack for
 * clock skew).
 */
final class DecreaseQuota {
    static final int DECREASES_PER_DAY = 27;
    private static final Duration SLACK = Duration.ofSeconds(10);

    private DecreaseQuota() {}

    static Duration untilNextDecrease(Instant now, ProvisionedThroughputDescription throughput) {
        Instant next = now.truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        if (throughput != null) {
            Long today = throughput.numberOfDecreasesToday();
            Instant last = throughput.lastDecreaseDateTime();
            if (today != null && today >= DECREASES_PER_DAY) {
                next = LocalDate.ofInstant(now, ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
            } else if (last != null && last.plus(Duration.ofHours(1)).isAfter(now)) {
                next = last.plus(Duration.ofHours(1));
            }
        }
        return Duration.between(now, next).plus(SLACK);
    }
}
