package io.periodtables.core.config;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings the job's state and tables are laid out by, kept in operator state so that a
 * restore with another value is refused at start (docs/operations.md "What may change across a
 * redeploy"): the period and its zone (window and rollup state, table names), the shards (item
 * keys), the prefix (which tables the state is about), the rolled-up fields, the latest table,
 * the late policy and the archive's path and columns (file sink state, complete archived
 * periods). Settings that may change (grains, capacity, timings) are not kept. With a Kinesis
 * source, also the input stream ({@link #STREAM}): the restored shard positions are that stream's,
 * and the restored enumerator lists shards after that stream's last one, so another stream would
 * be read from nowhere in silence.
 *
 * <p>A savepoint taken before the settings were kept restores without a check, and the current
 * settings are kept from then on.
 */
@Internal
public final class RedeploySettings {
    private static final Logger LOG = LoggerFactory.getLogger(RedeploySettings.class);

    /** The keys a restore must keep, in the order a refusal names the first that changed. */
    public static final List<ConfigKey<?>> FIXED = List.of(
            TableKeys.TABLES_PREFIX,
            TableKeys.TABLES_PERIOD,
            TableKeys.TABLES_ZONE,
            TableKeys.TABLES_SHARDS,
            ConfigKeys.ROLLUPS_FIELDS,
            ConfigKeys.LATEST_ENABLED,
            ConfigKeys.LATE_POLICY,
            ConfigKeys.ARCHIVE_PATH,
            ConfigKeys.ARCHIVE_COLUMNS);

    /**
     * The input stream, kept when the source is Kinesis and compared when both the savepoint's job
     * and this one read Kinesis (a switch of source drops the source's state anyway): its ARN, and
     * where it is reached, the region and the Kinesis endpoint in effect.
     */
    public static final List<ConfigKey<?>> STREAM =
            List.of(ConfigKeys.KINESIS_STREAM_ARN, ConfigKeys.AWS_REGION, ConfigKeys.KINESIS_ENDPOINT);

    private static final String UNSET = "(unset)";

    private final ListState<byte[]> state;
    private final SortedMap<String, String> current;

    private RedeploySettings(ListState<byte[]> state, SortedMap<String, String> current) {
        this.state = state;
        this.current = current;
    }

    /**
     * Registers the settings' union list state in {@code store} and, on a restore, compares the
     * saved settings with {@code config}'s; throws a {@link ConfigException} naming the first
     * key that changed.
     */
    public static RedeploySettings restore(OperatorStateStore store, boolean restored, PeriodTablesConfig config)
            throws Exception {
        ListState<byte[]> state = store.getUnionListState(
                new ListStateDescriptor<>("redeploy-settings", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        SortedMap<String, String> current = of(config);
        if (restored) {
            SortedMap<String, String> saved = null;
            for (byte[] bytes : state.get()) {
                saved = SimpleVersionedSerialization.readVersionAndDeSerialize(Serializer.INSTANCE, bytes);
            }
            if (saved == null) {
                LOG.info("The restored state keeps no settings (a savepoint of an earlier release): not checked");
            } else {
                check(saved, current);
            }
        }
        return new RedeploySettings(state, current);
    }

    /** Keeps the current settings in the snapshot; {@code write} is false on all but one subtask. */
    public void snapshot(boolean write) throws Exception {
        state.update(
                write
                        ? List.of(SimpleVersionedSerialization.writeVersionAndSerialize(Serializer.INSTANCE, current))
                        : List.of());
    }

    /** The fixed settings of {@code config} as written (a default as the key has it), unset ones included. */
    private static SortedMap<String, String> of(PeriodTablesConfig config) {
        SortedMap<String, String> settings = new TreeMap<>();
        for (ConfigKey<?> key : FIXED) {
            settings.put(key.name(), config.asText().getOrDefault(key.name(), UNSET));
        }
        if (config.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.KINESIS) {
            settings.put(ConfigKeys.KINESIS_STREAM_ARN.name(), config.get(ConfigKeys.KINESIS_STREAM_ARN));
            settings.put(ConfigKeys.AWS_REGION.name(), config.get(ConfigKeys.AWS_REGION));
            settings.put(
                    ConfigKeys.KINESIS_ENDPOINT.name(),
                    config.kinesisEndpoint().map(Object::toString).orElse(UNSET));
        }
        return Collections.unmodifiableSortedMap(settings);
    }

    private static void check(Map<String, String> saved, Map<String, String> current) {
        for (ConfigKey<?> key : FIXED) {
            String was = saved.get(key.name());
            String now = current.get(key.name());
            if (was != null && !was.equals(now)) {
                throw new ConfigException(
                        key.name(),
                        "Invalid configuration: " + key.name() + " = '" + now + "' cannot change across a restore:"
                                + " the savepoint was taken with " + key.name() + " = '" + was + "'; set it back,"
                                + " or start without the savepoint (docs/operations.md, What may change across a"
                                + " redeploy)");
            }
        }
        for (ConfigKey<?> key : STREAM) {
            String was = saved.get(key.name());
            String now = current.get(key.name());
            if (was != null && now != null && !was.equals(now)) {
                throw new ConfigException(
                        key.name(),
                        "Invalid configuration: " + key.name() + " = '" + now + "' cannot change across a restore:"
                                + " the savepoint was taken with " + key.name() + " = '" + was + "' and holds"
                                + " positions in that stream; set it back, or start without the savepoint from"
                                + " kinesis.initial-position AT_TIMESTAMP (docs/operations.md, What may change"
                                + " across a redeploy)");
            }
        }
    }

    /** Version 1: the number of settings, then each key and value. */
    static final class Serializer implements SimpleVersionedSerializer<SortedMap<String, String>> {
        static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(SortedMap<String, String> settings) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeInt(settings.size());
            for (Map.Entry<String, String> setting : settings.entrySet()) {
                out.writeUTF(setting.getKey());
                out.writeUTF(setting.getValue());
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public SortedMap<String, String> deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("unknown version " + version + " of the redeploy settings");
            }
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            SortedMap<String, String> settings = new TreeMap<>();
            for (int n = in.readInt(); n > 0; n--) {
                settings.put(in.readUTF(), in.readUTF());
            }
            return settings;
        }
    }
}
