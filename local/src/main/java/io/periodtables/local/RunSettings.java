package io.periodtables.local;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKey;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * What a local run is started with: its own options ({@code --duration}, {@code --from-savepoint},
 * {@code --stream-shards}) and the job's settings. The arguments before a lone {@code --} are the
 * launcher's defaults ({@code ./run-local}'s demo), those after it the user's, which override them.
 *
 * <p>A run's settings are saved in its savepoint ({@value #SAVED}); a resume takes them from
 * there instead of the defaults, and a setting given again must agree with the saved one: a job
 * restored with other settings (no archive, another period) would not match its savepoint's state
 * or tables. Secrets are never saved and are given again.
 */
final class RunSettings {
    /** The file in a savepoint's directory that holds the run's settings. */
    static final String SAVED = "run-local.properties";

    /** The key in {@value #SAVED} that names the run ({@link RunData}): its start, which a resume keeps. */
    static final String RUN = "run-local.run";

    /** {@code ./run-local --help}: the local run's own options, then the configuration's. */
    static final String USAGE = String.join(
            "\n",
            "Usage: ./run-local [--duration D] [--from-savepoint PATH] [--config FILE] [--KEY VALUE]...",
            "       ./run-local --serve",
            "Runs period-tables on a local Flink MiniCluster with dynalite and the synthetic fleet (a demo); ends",
            "after --duration or on Ctrl-C: the pipeline drains, a savepoint is taken, a summary is printed.",
            "",
            "  --duration D             end after this ISO-8601 duration, e.g. PT30S (default: on Ctrl-C)",
            "  --from-savepoint PATH    resume from a savepoint the summary printed, with the settings saved with it",
            "  --stream-shards N        with --source kinesis and no kinesis.stream-arn: the local stream's shards,",
            "                           1 to 50 (default: the fewest whose busiest shard, by the fleet's device ids,",
            "                           puts at most 60 % of a shard's 1,000 records a second: 4 for the demo)",
            "  --state.backend B        hashmap (default) or rocksdb: EmbeddedRocksDBStateBackend with incremental",
            "                           checkpoints in .flink-local/checkpoints, as Managed Service for Apache Flink"
                    + " runs",
            "  --s3.endpoint URL        with an s3:// archive.path: that S3 (credentials from the AWS default chain)",
            "                           instead of the local S3 emulator, which an s3:// archive.path starts otherwise",
            "  --serve                  serve the last run's data with dynalite, for the printed queries, until Enter,",
            "                           Ctrl-C or SIGTERM (without a terminal on stdin, until a signal); not beside a"
                    + " run",
            "  --config FILE            configuration keys from a properties file",
            "  --KEY VALUE              any key of docs/configuration.md, e.g. --tables.period PT1H; overrides the",
            "                           demo's settings",
            "  -h, --help               show this help",
            "",
            "Paths resolve where you stand; the run's files are in .flink-local of the repository.");

    static final List<String> OWN_OPTIONS = List.of(
            "--duration",
            "--from-savepoint",
            "--stream-shards",
            "--state.backend",
            "--s3.endpoint",
            "--serve",
            "--config",
            "--help");

    final Duration duration;
    /** The savepoint to resume from as a URI Flink reads, or null. */
    final String fromSavepoint;

    /** {@code --stream-shards} (it only applies to the run's own Kinesis stream), or null: sized from the fleet. */
    final Integer streamShards;
    /** The job's explicit settings (not validated yet). */
    final Map<String, String> settings;
    /** The local run's own options saved with the settings ({@link LocalOptions}), checked. */
    final Map<String, String> options;
    /** For a resume: where its settings came from. */
    final String origin;
    /**
     * Which run this is ({@link RunData}): a new run's start instant, a resume's from its savepoint
     * (null for a savepoint of a build that did not save it).
     */
    final String run;

    private RunSettings(
            Duration duration,
            String fromSavepoint,
            Integer streamShards,
            Map<String, String> settings,
            Map<String, String> options,
            String origin,
            String run) {
        this.duration = duration;
        this.fromSavepoint = fromSavepoint;
        this.streamShards = streamShards;
        this.settings = settings;
        this.options = options;
        this.origin = origin;
        this.run = run;
    }

    /**
     * Parses the arguments and, for a resume, checks the savepoint and merges its saved settings.
     *
     * @throws ConfigException with one line naming the option or key
     */
    static RunSettings parse(String[] args, Path workingDir) {
        int separator = Arrays.asList(args).indexOf("--");
        String[] defaults = separator < 0 ? new String[0] : Arrays.copyOfRange(args, 0, separator);
        Duration duration = null;
        String fromSavepoint = null;
        Integer streamShards = null;
        List<String> given = new ArrayList<>();
        for (int i = separator + 1; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--duration") || arg.equals("--from-savepoint") || arg.equals("--stream-shards")) {
                if (i + 1 == args.length) {
                    throw new ConfigException(
                            arg.substring(2), "Invalid argument '" + arg + "': it needs a value (" + arg + " VALUE)");
                }
                String value = args[++i];
                switch (arg) {
                    case "--duration" -> duration = duration(value);
                    case "--from-savepoint" -> fromSavepoint = value;
                    default -> streamShards = shards(value);
                }
            } else if (arg.equals("--config") && i + 1 < args.length) {
                given.add(arg);
                given.add(workingDir.resolve(args[++i]).toString());
            } else {
                given.add(arg);
            }
        }
        Map<String, String> user = new LinkedHashMap<>(ConfigLoader.settings(given.toArray(String[]::new), Map.of()));
        Map<String, String> options = LocalOptions.take(user);
        for (String name : user.keySet()) {
            if (ConfigKeys.byName(name) == null) {
                List<String> candidates = new ArrayList<>(OWN_OPTIONS);
                ConfigKeys.all().forEach(k -> candidates.add("--" + k.name()));
                throw new ConfigException(
                        name,
                        "Unknown option '--" + name + "'"
                                + ConfigLoader.nearest("--" + name, candidates)
                                        .map(best -> " (did you mean '" + best + "'?)")
                                        .orElse("")
                                + "; ./run-local --help lists the options");
            }
        }
        if (fromSavepoint == null) {
            Map<String, String> settings = new LinkedHashMap<>(ConfigLoader.settings(defaults, Map.of()));
            settings.putAll(user);
            return new RunSettings(
                    duration,
                    null,
                    streamShards,
                    settings,
                    options,
                    null,
                    Instant.now().truncatedTo(ChronoUnit.MILLIS).toString());
        }
        Path savepoint = savepointDir(fromSavepoint, workingDir);
        Path savedFile = savepoint.resolve(SAVED);
        if (!Files.exists(savedFile)) {
            // a savepoint of a build that saved no settings: the defaults and the command line, as then
            Map<String, String> settings = new LinkedHashMap<>(ConfigLoader.settings(defaults, Map.of()));
            settings.putAll(user);
            return new RunSettings(
                    duration,
                    savepoint.toUri().toString(),
                    streamShards,
                    settings,
                    options,
                    "the command line (the savepoint has no " + SAVED + ")",
                    null);
        }
        Map<String, String> saved = read(savedFile);
        if ("kinesis".equals(saved.get(ConfigKeys.SOURCE.name()))
                && !saved.containsKey(ConfigKeys.KINESIS_STREAM_ARN.name())) {
            // the run's stream lived in its own kinesalite, gone with it: no resume can reach the stream its
            // savepoint's shard positions are of (and the job refuses another stream at restore)
            throw new ConfigException(
                    "from-savepoint",
                    "Invalid argument: --from-savepoint resumes a run of the demo fleet; a --source kinesis run's"
                            + " stream lived only as long as that run, so its savepoint cannot be resumed; start a"
                            + " new run without --from-savepoint");
        }
        String run = saved.remove(RUN);
        Map<String, String> savedOptions = LocalOptions.take(saved);
        Map<String, String> settings = new LinkedHashMap<>(saved);
        settings.putAll(user);
        agree(saved, settings, user, savepoint);
        agreeOptions(savedOptions, options, savepoint);
        savedOptions.putAll(options);
        return new RunSettings(
                duration,
                savepoint.toUri().toString(),
                streamShards,
                settings,
                savedOptions,
                savedFile.toString(),
                run);
    }

    /** The user's arguments: those after a lone {@code --}, or all of them. */
    static List<String> userArgs(String[] args) {
        int separator = Arrays.asList(args).indexOf("--");
        return Arrays.asList(args).subList(separator + 1, args.length);
    }

    /** Saves the settings in the savepoint's directory, secrets left out. */
    void saveWith(String savepoint) {
        Properties keys = new Properties();
        settings.forEach((k, v) -> {
            if (!PeriodTablesConfig.isSecret(k)) {
                keys.setProperty(k, v);
            }
        });
        options.forEach(keys::setProperty);
        if (run != null) {
            keys.setProperty(RUN, run);
        }
        Path file = Path.of(URI.create(savepoint)).resolve(SAVED);
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            keys.store(out, "the settings of the ./run-local that took this savepoint; a resume uses them");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Each setting given again for a resume means what the saved run had (defaults included). */
    private static void agree(
            Map<String, String> saved, Map<String, String> merged, Map<String, String> user, Path savepoint) {
        PeriodTablesConfig before = ConfigLoader.fromMap(saved, true);
        PeriodTablesConfig now = ConfigLoader.fromMap(merged, true);
        for (String name : user.keySet()) {
            ConfigKey<?> key = ConfigKeys.byName(name);
            if (key == null || PeriodTablesConfig.isSecret(name)) {
                continue;
            }
            if (!Objects.equals(before.find(key), now.find(key))) {
                String was = before.asText().get(name);
                throw new ConfigException(
                        name,
                        "Invalid argument: --" + name + " " + user.get(name) + " differs from the run saved with "
                                + savepoint + " (" + (was == null ? "not set" : was)
                                + "): a resume keeps its run's settings; leave it out");
            }
        }
    }

    /** The local run's options given again for a resume mean what the saved run had (defaults included). */
    private static void agreeOptions(Map<String, String> saved, Map<String, String> given, Path savepoint) {
        given.forEach((name, value) -> {
            String was = saved.getOrDefault(name, LocalOptions.defaultOf(name));
            if (!value.equals(was)) {
                throw new ConfigException(
                        name,
                        "Invalid argument: --" + name + " " + value + " differs from the run saved with " + savepoint
                                + " (" + (was == null ? "not set" : was)
                                + "): a resume keeps its run's settings; leave it out");
            }
        });
    }

    private static Path savepointDir(String text, Path workingDir) {
        Path dir;
        try {
            dir = text.startsWith("file:") ? Path.of(URI.create(text)) : workingDir.resolve(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    "from-savepoint",
                    "Invalid argument: --from-savepoint '" + text + "': expected a directory or a file: URI");
        }
        if (dir.getFileName() != null && dir.getFileName().toString().equals("_metadata")) {
            dir = dir.getParent();
        }
        if (!Files.isRegularFile(dir.resolve("_metadata"))) {
            throw new ConfigException(
                    "from-savepoint",
                    "Invalid argument: --from-savepoint '" + text + "': no savepoint there (no "
                            + dir.resolve("_metadata") + "); ./run-local prints its savepoint's path at the end");
        }
        return dir.toAbsolutePath().normalize();
    }

    private static Map<String, String> read(Path file) {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(in);
        } catch (IOException e) {
            throw new ConfigException(
                    "from-savepoint", "Cannot read the saved settings " + file + ": " + e.getMessage());
        }
        Map<String, String> map = new LinkedHashMap<>();
        props.stringPropertyNames().stream().sorted().forEach(k -> map.put(k, props.getProperty(k)));
        return map;
    }

    private static Duration duration(String text) {
        Duration duration;
        try {
            duration = Duration.parse(text);
        } catch (RuntimeException e) {
            duration = Duration.ZERO;
        }
        // a run of no time would still start on empty tables and end without a savepoint
        if (duration.isNegative() || duration.isZero()) {
            throw new ConfigException(
                    "duration",
                    "Invalid argument: --duration = '" + text
                            + "': expected a positive ISO-8601 duration such as PT30S");
        }
        return duration;
    }

    private static int shards(String text) {
        try {
            int shards = Integer.parseInt(text);
            if (shards >= 1 && shards <= 50) {
                return shards;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new ConfigException(
                "stream-shards",
                "Invalid argument: --stream-shards = '" + text + "': expected a whole number from 1 to 50");
    }
}
