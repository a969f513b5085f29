package io.periodtables.rotation.controlplane;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.dynamodb.DynamoDbFailure.Kind;
import io.periodtables.core.dynamodb.DynamoDbFailure.ThroughputSetting;
import io.periodtables.core.dynamodb.ThroughputQuotaRefused;

/**
 * What a control-plane failure means for the table owner, on top of {@link DynamoDbFailure}'s
 * classification: retry with backoff (throttling, 5xx, I/O, too many concurrent table
 * operations, a table busy with another change) or give up, at once and for good when DynamoDB
 * refuses a throughput as above the per-table quota ({@link ThroughputQuotaRefused}); and the few error answers that
 * are really successes or facts about the table ("TimeToLive is already enabled", a same-value
 * throughput update, deletion protection).
 */
public final class ControlPlaneErrors {

    private ControlPlaneErrors() {}

    /** The cause inside the wrappers that futures put around it. */
    public static Throwable unwrap(Throwable t) {
        return DynamoDbFailure.unwrap(t);
    }

    /**
     * True when the same call may succeed later: worth a retry with backoff. A {@code
     * LimitExceededException} is, as too many concurrent table operations heal, unless it refuses a
     * throughput above the per-table quota, which no retry changes.
     */
    static boolean isTransient(Throwable error) {
        Kind kind = DynamoDbFailure.classify(error);
        return (kind == Kind.THROTTLED || kind == Kind.TRANSIENT || kind == Kind.QUOTA || kind == Kind.TABLE_BUSY)
                && DynamoDbFailure.throughputQuotaRefusal(error).isEmpty();
    }

    /**
     * The failure of a CreateTable or UpdateTable of {@code table}: the {@link
     * ThroughputQuotaRefused} naming the key the rotation took the refused setting from, or the
     * error as DynamoDB answered it.
     */
    static Throwable ofTableRequest(Throwable error, String table, PeriodTablesConfig config) {
        return ThroughputQuotaRefused.of(error, table, config, ControlPlaneErrors::keyOf)
                .<Throwable>map(refused -> refused)
                .orElseGet(() -> unwrap(error));
    }

    private static String keyOf(ThroughputSetting setting) {
        return switch (setting) {
            case PROVISIONED_THROUGHPUT -> "tables.capacity.*";
            case ON_DEMAND_THROUGHPUT -> TableKeys.TABLES_ON_DEMAND_MAX.name();
            case WARM_THROUGHPUT -> TableKeys.TABLES_WARM_THROUGHPUT_MAX.name();
        };
    }

    static boolean isNotFound(Throwable t) {
        return DynamoDbFailure.classify(t) == Kind.TABLE_MISSING;
    }

    static boolean isInUse(Throwable t) {
        return DynamoDbFailure.classify(t) == Kind.TABLE_BUSY;
    }

    static boolean isLimitExceeded(Throwable t) {
        return DynamoDbFailure.classify(t) == Kind.QUOTA;
    }

    /** UpdateTimeToLive on a table whose TTL is already on: the goal is reached. */
    static boolean isTtlAlreadyEnabled(Throwable t) {
        return DynamoDbFailure.messageContains(t, "already enabled");
    }

    /** UpdateTable with the values the table already has (real DynamoDB refuses it). */
    static boolean isSameThroughput(Throwable t) {
        return DynamoDbFailure.messageContains(t, "will not change")
                || DynamoDbFailure.messageContains(t, "equals the current value");
    }

    /** DeleteTable on a table with deletion protection. */
    static boolean isDeletionProtected(Throwable t) {
        return DynamoDbFailure.messageContains(t, "protected against deletion");
    }

    public static String describe(Throwable t) {
        return DynamoDbFailure.describe(t);
    }
}
