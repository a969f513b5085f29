package io.periodtables.core.dynamodb;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbFailure.ThroughputSetting;
import java.util.Optional;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;

/**
 * DynamoDB refused a throughput the configuration asked a table for as above the per-table
 * quota, though {@code limits.max-table-units} let it start: the account's quota is lower than
 * configured. Retrying cannot help, so whoever meets it fails the job with this one-line message
 * naming the key the setting came from and {@code limits.max-table-units}.
 */
@Internal
public final class ThroughputQuotaRefused extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String key;

    private ThroughputQuotaRefused(String key, String message, Throwable said) {
        super(message, said);
        this.key = key;
    }

    /**
     * The refusal {@code error} is ({@link DynamoDbFailure#throughputQuotaRefusal}) of a request
     * for {@code table}; {@code keyOf} names the key each setting of the request came from.
     */
    public static Optional<ThroughputQuotaRefused> of(
            Throwable error, String table, PeriodTablesConfig config, Function<ThroughputSetting, String> keyOf) {
        return DynamoDbFailure.throughputQuotaRefusal(error).map(setting -> {
            String key = keyOf.apply(setting);
            String value = config.asText().get(key);
            return new ThroughputQuotaRefused(
                    key,
                    String.format(
                            "DynamoDB refused the %s of table %s (%s) as above its per-table throughput quota, which"
                                    + " is below %s = %d: set %s to the account's quota and %s within it, or have the"
                                    + " quota raised; DynamoDB said %s",
                            setting.field(),
                            table,
                            value == null ? key : key + " = " + value,
                            ConfigKeys.LIMITS_MAX_TABLE_UNITS.name(),
                            config.get(ConfigKeys.LIMITS_MAX_TABLE_UNITS),
                            ConfigKeys.LIMITS_MAX_TABLE_UNITS.name(),
                            key,
                            DynamoDbFailure.describe(error)),
                    DynamoDbFailure.unwrap(error));
        });
    }

    /** The key whose value DynamoDB refused. */
    public String key() {
        return key;
    }
}
