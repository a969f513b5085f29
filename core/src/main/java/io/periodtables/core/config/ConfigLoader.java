package io.periodtables.core.config;

import io.periodtables.core.capacity.Capacity;
import java.io.IOException;
import java.io.Reader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Loads a {@link PeriodTablesConfig} with the precedence defaults &lt; {@code --config
 * file.properties} &lt; Managed Service for Apache Flink runtime property groups &lt;
 * {@code --key value} arguments, then validates each value and the rules between keys
 * ({@link ConfigRules}). Any problem is a {@link ConfigException}
 * whose one-line message names the key.
 *
 * <p>Runtime property groups map to keys as {@code <group>.<key>} (group {@code tables}, key
 * {@code prefix} is {@code tables.prefix}); keys in group {@code job} are taken as they are.
 */
@PublicEvolving
public final class ConfigLoader {

    /** The property group whose keys are used without a group prefix. */
    public static final String JOB_GROUP = "job";

    private ConfigLoader() {}

    /**
     * Loads the configuration.
     *
     * @param args command-line arguments: {@code --config FILE} and {@code --key value} (or
     *     {@code --key=value}) pairs
     * @param runtimeGroups MSF runtime property groups; empty when not running on MSF
     * @param local true outside MSF (changes defaults such as {@code dynamodb.embedded})
     */
    public static PeriodTablesConfig load(String[] args, Map<String, Properties> runtimeGroups, boolean local) {
        return fromMap(settings(args, runtimeGroups), local);
    }

    /**
     * The explicitly set values with their precedence applied, not yet validated: {@code --config}
     * file &lt; runtime property groups &lt; {@code --key value} arguments.
     */
    public static Map<String, String> settings(String[] args, Map<String, Properties> runtimeGroups) {
        Map<String, String> cli = new LinkedHashMap<>();
        String configFile = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new ConfigException(
                        arg, "Invalid argument '" + arg + "': expected --key value or --config file.properties");
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new ConfigException(
                        name, "Invalid argument '" + arg + "': it needs a value (--" + name + " VALUE)");
            }
            if (name.equals("config")) {
                configFile = value;
            } else {
                cli.put(name, value);
            }
        }

        Map<String, String> merged = new LinkedHashMap<>();
        if (configFile != null) {
            merged.putAll(readFile(Path.of(configFile)));
        }
        runtimeGroups.forEach((group, props) -> props.stringPropertyNames().forEach(k -> {
            String name = group.equals(JOB_GROUP) || k.startsWith(group + ".") ? k : group + "." + k;
            merged.put(name, props.getProperty(k));
        }));
        merged.putAll(cli);
        return merged;
    }

    /** Validates explicitly set values (defaults fill the rest). */
    public static PeriodTablesConfig fromMap(Map<String, String> explicit, boolean local) {
        for (String name : explicit.keySet()) {
            if (ConfigKeys.byName(name) == null) {
                throw unknown(name);
            }
        }
        Map<String, String> text = new HashMap<>();
        HashMap<String, Serializable> values = new HashMap<>();
        for (ConfigKey<?> key : ConfigKeys.all()) {
            String value = explicit.get(key.name());
            if (value == null && key == ConfigKeys.DYNAMODB_EMBEDDED) {
                value = String.valueOf(local);
            } else if (value == null && (key == ConfigKeys.ROTATION_LEAD || key == ConfigKeys.ALLOWED_LATENESS)) {
                value = quarterOfPeriodAtMost(key, explicit);
            } else if (value == null && key == TableKeys.CAPACITY_CURRENT && local && generates(explicit)) {
                value = currentTierForTheGenerator(explicit);
            } else if (value == null && key == TableKeys.CAPACITY_AUTOSCALING) {
                continue; // decided from billing and endpoints: PeriodTablesConfig.autoscaling()
            } else if (value == null) {
                value = key.defaultValue();
            }
            if (value == null) {
                continue;
            }
            text.put(key.name(), value);
            values.put(key.name(), (Serializable) key.parse(value));
        }
        PeriodTablesConfig config = new PeriodTablesConfig(text, values, local);
        ConfigRules.check(config);
        return config;
    }

    /**
     * Every problem of explicitly set values, each as {@link #fromMap} would stop the job with it:
     * each unknown key and each value its key refuses, or else the first rule between keys that fails
     * (the rules read parsed values, so they are only checked once every value parses). Empty when
     * the job would start.
     */
    public static List<ConfigException> problems(Map<String, String> explicit, boolean local) {
        List<ConfigException> problems = new ArrayList<>();
        explicit.forEach((name, value) -> {
            ConfigKey<?> key = ConfigKeys.byName(name);
            if (key == null) {
                problems.add(unknown(name));
                return;
            }
            try {
                key.parse(value);
            } catch (ConfigException e) {
                problems.add(e);
            }
        });
        if (problems.isEmpty()) {
            try {
                fromMap(explicit, local);
            } catch (ConfigException e) {
                problems.add(e);
            }
        }
        return problems;
    }

    private static ConfigException unknown(String name) {
        return new ConfigException(
                name,
                "Unknown configuration key '" + name + "'" + suggestion(name)
                        + "; see the table in docs/configuration.md");
    }

    /**
     * The default of a duration that must be shorter than the period: the key's own, or a quarter
     * of a shorter period ({@code tables.period PT15M} alone starts).
     */
    private static String quarterOfPeriodAtMost(ConfigKey<?> key, Map<String, String> explicit) {
        Duration fallback = Duration.parse(key.defaultValue());
        String period = explicit.getOrDefault(TableKeys.TABLES_PERIOD.name(), TableKeys.TABLES_PERIOD.defaultValue());
        Duration quarter =
                TableKeys.TABLES_PERIOD.parse(period).minimumDuration().dividedBy(4);
        return (quarter.compareTo(fallback) < 0 ? quarter : fallback).toString();
    }

    /**
     * Whether a local run names its synthetic fleet's rate: the fleet is generated in the job, or
     * (with {@code --source kinesis}) put into the run's own stream at that rate.
     */
    private static boolean generates(Map<String, String> explicit) {
        return explicit.containsKey(ConfigKeys.GENERATOR_RATE.name());
    }

    /**
     * A local run's synthetic fleet given a {@code generator.rate} writes that a wall-clock second from its start,
     * before any table has been sized from observation: its first tables hold that rate at the
     * target utilisation (the key's own default when that is more), at most {@code
     * limits.max-table-units}: a derived size is never what stops the start.
     */
    private static String currentTierForTheGenerator(Map<String, String> explicit) {
        double rate = ConfigKeys.GENERATOR_RATE.parse(
                explicit.getOrDefault(ConfigKeys.GENERATOR_RATE.name(), ConfigKeys.GENERATOR_RATE.defaultValue()));
        double target = TableKeys.CAPACITY_TARGET_UTILIZATION.parse(explicit.getOrDefault(
                TableKeys.CAPACITY_TARGET_UTILIZATION.name(), TableKeys.CAPACITY_TARGET_UTILIZATION.defaultValue()));
        Capacity fallback = TableKeys.CAPACITY_CURRENT.parse(TableKeys.CAPACITY_CURRENT.defaultValue());
        long quota = ConfigKeys.LIMITS_MAX_TABLE_UNITS.parse(explicit.getOrDefault(
                ConfigKeys.LIMITS_MAX_TABLE_UNITS.name(), ConfigKeys.LIMITS_MAX_TABLE_UNITS.defaultValue()));
        long writes = Math.min(quota, Math.max(fallback.writeUnits(), (long) Math.ceil(rate / target)));
        return writes + "/" + fallback.readUnits();
    }

    private static Map<String, String> readFile(Path file) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new ConfigException("config", "Cannot read --config file '" + file + "': " + e.getMessage());
        }
        Map<String, String> map = new LinkedHashMap<>();
        props.stringPropertyNames().forEach(k -> map.put(k, props.getProperty(k)));
        return map;
    }

    private static String suggestion(String name) {
        return nearest(name, ConfigKeys.all().stream().map(ConfigKey::name).toList())
                .map(best -> " (did you mean '" + best + "'?)")
                .orElse("");
    }

    /** The candidate nearest to a mistyped {@code name} (at most 3 edits away), for a "did you mean". */
    public static Optional<String> nearest(String name, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = distance(name, candidate);
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
        return bestDistance <= 3 ? Optional.of(best) : Optional.empty();
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
