package io.periodtables.core.config;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.item.ItemSettings;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.TableNaming;
import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The validated, typed configuration of one job run. Built by {@link ConfigLoader}; every value
 * has been parsed by its {@link ConfigKey} and the cross-key rules have been checked, so code
 * that holds one never re-validates. Serializable, so operators can carry it.
 */
@PublicEvolving
public final class PeriodTablesConfig implements Serializable, ItemSettings, CapacitySizing.Settings {
    private static final long serialVersionUID = 1L;

    private final Map<String, String> text;
    private final HashMap<String, Serializable> values;
    private final boolean local;

    PeriodTablesConfig(Map<String, String> text, HashMap<String, Serializable> values, boolean local) {
        this.text = Collections.unmodifiableMap(new TreeMap<>(text));
        this.values = values;
        this.local = local;
    }

    /** The value of {@code key}, or {@code null} for an unset key without default. */
    @SuppressWarnings("unchecked")
    public <T> T get(ConfigKey<T> key) {
        return (T) values.get(key.name());
    }

    /** The value of a key without default, when it is set. */
    public <T> Optional<T> find(ConfigKey<T> key) {
        return Optional.ofNullable(get(key));
    }

    /** The effective values as text (defaults included), for logging; see {@link #describe()}. */
    public Map<String, String> asText() {
        return text;
    }

    /** True when running outside Managed Service for Apache Flink. */
    public boolean isLocal() {
        return local;
    }

    /** The effective configuration, one {@code key=value} per line, sorted, with secrets masked. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        text.forEach((k, v) ->
                sb.append(k).append('=').append(isSecret(k) ? "****" : v).append('\n'));
        return sb.toString();
    }

    /** True for keys whose values are never printed or written out (secrets, passwords, KMS keys). */
    public static boolean isSecret(String key) {
        return key.contains("secret") || key.contains("password") || key.contains("kms-key");
    }

    @Override
    public PeriodCalendar calendar() {
        return new PeriodCalendar(get(TableKeys.TABLES_PERIOD), get(TableKeys.TABLES_ZONE));
    }

    public TableNaming naming() {
        return new TableNaming(get(TableKeys.TABLES_PREFIX), calendar());
    }

    @Override
    public WriteSharding sharding() {
        return new WriteSharding(get(TableKeys.TABLES_SHARDS));
    }

    public Capacity capacity(CapacityTier tier) {
        switch (tier) {
            case CURRENT:
                return get(TableKeys.CAPACITY_CURRENT);
            case PREVIOUS:
                return get(TableKeys.CAPACITY_PREVIOUS);
            default:
                return get(TableKeys.CAPACITY_OLDER);
        }
    }

    /** Capacity of a tier as the tables get it: on-demand for every tier when billing is on-demand. */
    @Override
    public Capacity effectiveCapacity(CapacityTier tier) {
        return get(TableKeys.TABLES_BILLING) == ConfigKeys.Billing.PAY_PER_REQUEST
                ? Capacity.ON_DEMAND
                : capacity(tier);
    }

    /** DynamoDB endpoint override: {@code dynamodb.endpoint}, else {@code aws.endpoint}. */
    public Optional<URI> dynamoDbEndpoint() {
        return find(ConfigKeys.DYNAMODB_ENDPOINT).or(() -> find(ConfigKeys.AWS_ENDPOINT));
    }

    /** Kinesis endpoint override: {@code kinesis.endpoint}, else {@code aws.endpoint}. */
    public Optional<URI> kinesisEndpoint() {
        return find(ConfigKeys.KINESIS_ENDPOINT).or(() -> find(ConfigKeys.AWS_ENDPOINT));
    }

    /** True when the job should start dynalite itself: embedded and no endpoint set. */
    public boolean startsEmbeddedDynamoDb() {
        return get(ConfigKeys.DYNAMODB_EMBEDDED) && dynamoDbEndpoint().isEmpty();
    }

    /**
     * Whether the open table is registered with Application Auto Scaling: {@code
     * tables.capacity.autoscaling} when set, else on for provisioned tables on AWS (no DynamoDB
     * endpoint override: emulators have no auto scaling).
     */
    public boolean autoscaling() {
        if (get(TableKeys.TABLES_BILLING) == ConfigKeys.Billing.PAY_PER_REQUEST) {
            return false;
        }
        return find(TableKeys.CAPACITY_AUTOSCALING).orElse(dynamoDbEndpoint().isEmpty());
    }

    /** TTL duration when {@code tables.ttl} is set. */
    @Override
    public Optional<Duration> ttl() {
        return find(TableKeys.TABLES_TTL);
    }

    @Override
    public Optional<List<Duration>> rollupGrains() {
        return find(ConfigKeys.ROLLUPS_EVERY);
    }

    @Override
    public Optional<List<String>> rollupFields() {
        return find(ConfigKeys.ROLLUPS_FIELDS);
    }

    @Override
    public Capacity currentMin() {
        return get(TableKeys.CAPACITY_CURRENT_MIN);
    }

    @Override
    public Capacity currentMax() {
        return get(TableKeys.CAPACITY_CURRENT_MAX);
    }

    @Override
    public double targetUtilization() {
        return get(TableKeys.CAPACITY_TARGET_UTILIZATION);
    }

    /** A copy with one value replaced, validated as a whole again (used to point a run at an emulator). */
    public PeriodTablesConfig with(ConfigKey<?> key, String value) {
        Map<String, String> overrides = new HashMap<>(explicitText());
        overrides.put(key.name(), value);
        return ConfigLoader.fromMap(overrides, local);
    }

    private Map<String, String> explicitText() {
        Map<String, String> explicit = new HashMap<>();
        text.forEach((k, v) -> {
            ConfigKey<?> key = ConfigKeys.byName(k);
            if (key != null && !v.equals(key.defaultValue())) {
                explicit.put(k, v);
            }
        });
        return explicit;
    }
}
