package io.periodtables.core.config;

import io.periodtables.core.item.ArchiveColumn;
import io.periodtables.core.period.PeriodLength;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.fs.Path;
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
 * keys), the prefix (which tables the state is about), the rolled-up fields, the late policy and
 * the archive's path and columns (file sink state, complete archived periods). Settings that may
 * change (grains, capacity, timings, the latest table) are not kept. With a Kinesis source, also
 * the input stream ({@link #STREAM}): the restored shard positions are that stream's, and the
 * restored enumerator lists shards after that stream's last one, so another stream would be read
 * from nowhere in silence.
 *
 * <p>A restore is judged by what a value means, not how it is spelled: each kept value is parsed
 * (the savepoint's as its key parses it now) and compared as a {@link Kept} says, so {@code
 * Etc/UTC} restores a savepoint of {@code UTC}, {@code PT60M} one of {@code PT1H}. A refusal shows
 * both values parsed. The snapshot keeps each value in its parsed form; a savepoint that kept the
 * text as written (the releases before) restores the same way. A savepoint taken before the
 * settings were kept restores without a check, and the current settings are kept from then on.
 */
@Internal
public final class RedeploySettings {
    private static final Logger LOG = LoggerFactory.getLogger(RedeploySettings.class);

    /** The settings a restore must keep, in the order a refusal names the first that changed. */
    public static final List<Kept<?>> KEPT = List.of(
            Kept.of(TableKeys.TABLES_PREFIX, prefix -> prefix),
            Kept.of(TableKeys.TABLES_PERIOD, RedeploySettings::periodText),
            // one zone under two names (UTC, Etc/UTC, Z) lays out the same periods and table names
            Kept.of(TableKeys.TABLES_ZONE, ZoneId::getId, ZoneId::getRules),
            Kept.of(TableKeys.TABLES_SHARDS, String::valueOf),
            // a bucket holds its fields by name: their order means nothing
            Kept.of(ConfigKeys.ROLLUPS_FIELDS, fields -> String.join(",", fields), Set::copyOf),
            Kept.of(
                    ConfigKeys.LATE_POLICY,
                    policy -> policy.name().toLowerCase(Locale.ROOT).replace('_', '-')),
            Kept.of(ConfigKeys.ARCHIVE_PATH, RedeploySettings::archivePathText),
            Kept.of(ConfigKeys.ARCHIVE_COLUMNS, RedeploySettings::columnsText));

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
                for (Kept<?> kept : KEPT) {
                    kept.check(saved.get(kept.key.name()), config);
                }
                checkStream(saved, current);
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

    /** The kept settings of {@code config}, parsed and written back as text, unset ones included. */
    private static SortedMap<String, String> of(PeriodTablesConfig config) {
        SortedMap<String, String> settings = new TreeMap<>();
        for (Kept<?> kept : KEPT) {
            settings.put(kept.key.name(), kept.textOf(config));
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

    /** Refuses another input stream: kept and compared only when both jobs read Kinesis. */
    private static void checkStream(Map<String, String> saved, Map<String, String> current) {
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

    /** {@code P1D}, {@code P1W}, {@code P1M}, or a sub-day period as its duration ({@code PT60M} is {@code PT1H}). */
    private static String periodText(PeriodLength period) {
        return period.kind() == PeriodLength.Kind.SUB_DAY
                ? Duration.ofMinutes(period.nominalMinutes()).toString()
                : period.toString();
    }

    /**
     * The archive's directory as Flink resolves it ({@link Path}: no trailing or doubled {@code /}),
     * with the scheme in lower case and {@code file:/x} written {@code file:///x}.
     */
    private static String archivePathText(String path) {
        URI uri = new Path(path).toUri().normalize();
        return uri.getScheme().toLowerCase(Locale.ROOT) + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority())
                + uri.getPath();
    }

    private static String columnsText(List<ArchiveColumn> columns) {
        StringJoiner text = new StringJoiner(",");
        for (ArchiveColumn column : columns) {
            text.add(column.name() + ":" + column.type().name().toLowerCase(Locale.ROOT));
        }
        return text.toString();
    }

    /**
     * One setting a restore keeps: its key, its value's parsed form as text (kept in the snapshot
     * and shown in a refusal) and what of the value is compared (by default that text).
     */
    public static final class Kept<T> {
        private final ConfigKey<T> key;
        private final Function<T, String> text;
        private final Function<T, Object> meaning;

        private Kept(ConfigKey<T> key, Function<T, String> text, Function<T, Object> meaning) {
            this.key = key;
            this.text = text;
            this.meaning = meaning;
        }

        static <T> Kept<T> of(ConfigKey<T> key, Function<T, String> text) {
            return new Kept<>(key, text, value -> text.apply(value));
        }

        static <T> Kept<T> of(ConfigKey<T> key, Function<T, String> text, Function<T, Object> meaning) {
            return new Kept<>(key, text, meaning);
        }

        public ConfigKey<T> key() {
            return key;
        }

        private String textOf(PeriodTablesConfig config) {
            return config.find(key).map(text).orElse(UNSET);
        }

        /**
         * Refuses {@code config} when its value means another than {@code saved}, the text a
         * snapshot kept (null: the snapshot did not keep this key).
         */
        private void check(String saved, PeriodTablesConfig config) {
            if (saved == null) {
                return;
            }
            Optional<T> now = config.find(key);
            Optional<T> was;
            try {
                was = saved.equals(UNSET) ? Optional.empty() : Optional.of(key.parse(saved));
            } catch (ConfigException noLongerValid) {
                // a value the rules of this release refuse cannot mean what the current one means
                refuse(textOf(config), saved);
                return;
            }
            if (!now.map(meaning).equals(was.map(meaning))) {
                refuse(textOf(config), was.map(text).orElse(UNSET));
            }
        }

        private void refuse(String now, String was) {
            throw new ConfigException(
                    key.name(),
                    "Invalid configuration: " + key.name() + " = '" + now + "' cannot change across a restore:"
                            + " the savepoint was taken with " + key.name() + " = '" + was + "'; set it back,"
                            + " or start without the savepoint (docs/operations.md, What may change across a"
                            + " redeploy)");
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
