package io.periodtables.local;

import io.periodtables.core.config.ConfigException;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;

/**
 * The local run's options that configure Flink rather than the job, given as {@code --name value}
 * and saved with a run's settings like the job's keys: {@code state.backend} ({@code hashmap}, the
 * default, or {@code rocksdb}: {@code EmbeddedRocksDBStateBackend} with incremental checkpoints,
 * the backend Managed Service for Apache Flink runs) and {@code s3.endpoint} (an S3 of the user's
 * for an {@code s3://} archive, instead of the local S3 emulator).
 */
final class LocalOptions {
    static final String STATE_BACKEND = "state.backend";
    static final String S3_ENDPOINT = "s3.endpoint";
    static final Set<String> NAMES = Set.of(STATE_BACKEND, S3_ENDPOINT);

    static final String HASHMAP = "hashmap";
    static final String ROCKSDB = "rocksdb";

    private LocalOptions() {}

    /**
     * Removes the local run's options from {@code settings} and returns them, checked.
     *
     * @throws ConfigException with one line naming the option
     */
    static Map<String, String> take(Map<String, String> settings) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String name : NAMES) {
            String value = settings.remove(name);
            if (value != null) {
                options.put(name, check(name, value));
            }
        }
        return options;
    }

    /** The value a run without the option has. */
    static String defaultOf(String name) {
        return name.equals(STATE_BACKEND) ? HASHMAP : null;
    }

    static Optional<URI> s3Endpoint(Map<String, String> options) {
        return Optional.ofNullable(options.get(S3_ENDPOINT)).map(URI::create);
    }

    /**
     * The Flink configuration of the chosen state backend: RocksDB checkpoints incrementally into
     * {@code checkpoints}; the heap backend keeps Flink's defaults.
     */
    static Configuration stateBackend(Map<String, String> options, Path checkpoints) {
        Configuration flink = new Configuration();
        if (options.getOrDefault(STATE_BACKEND, HASHMAP).equals(ROCKSDB)) {
            flink.set(StateBackendOptions.STATE_BACKEND, ROCKSDB);
            flink.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
            flink.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
            flink.set(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    checkpoints.toAbsolutePath().toUri().toString());
        }
        return flink;
    }

    private static String check(String name, String value) {
        if (name.equals(STATE_BACKEND)) {
            if (value.equals(HASHMAP) || value.equals(ROCKSDB)) {
                return value;
            }
            throw new ConfigException(
                    name,
                    "Invalid argument: --" + name + " = '" + value + "': expected " + HASHMAP + " (the default) or "
                            + ROCKSDB);
        }
        try {
            URI uri = URI.create(value);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return value;
            }
        } catch (IllegalArgumentException e) {
            // the message below
        }
        throw new ConfigException(
                name, "Invalid argument: --" + name + " = '" + value + "': expected an http:// or https:// URL");
    }
}
