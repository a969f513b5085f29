package io.periodtables.local;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.S3Emulator;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.hadoop.util.ShutdownHookManager;

/**
 * The S3 of a local run whose {@code archive.path} is {@code s3://bucket/…}: the S3 emulator
 * ({@link S3Emulator}, s3proxy on 127.0.0.1) with that bucket and its objects in files under
 * {@link #DATA}, unless {@code --s3.endpoint} names an S3 of the user's. A new run starts with an
 * empty folder; a resume serves the one its run left, so the file sink's restored state finds its
 * uploads and the archive goes on. Flink registers its file systems once per process: {@link
 * #initializeFileSystems} hands them the endpoint (and the emulator's key pair and path-style
 * access) before the MiniCluster starts.
 */
final class LocalS3 {
    /** Where the emulator keeps the local run's buckets, beside dynalite's data. */
    static final Path DATA = LocalRunner.WORK_DIR.resolve("s3");

    /** S3's bucket naming rule (3 to 63 of lower-case letters, digits, dots and hyphens). */
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private LocalS3() {}

    /**
     * The bucket the emulator is to serve, or empty when the run needs no emulator: no
     * {@code s3://} archive, or an {@code --s3.endpoint} of the user's.
     *
     * @throws ConfigException with one line naming the key or option, before anything starts
     */
    static Optional<String> emulatedBucket(
            PeriodTablesConfig config, Map<String, String> options, String fromSavepoint) {
        Optional<String> archive = config.find(ConfigKeys.ARCHIVE_PATH);
        boolean s3 = archive.filter(p -> p.startsWith("s3://")).isPresent();
        if (LocalOptions.s3Endpoint(options).isPresent()) {
            if (!s3) {
                throw new ConfigException(
                        LocalOptions.S3_ENDPOINT,
                        "Invalid argument: --" + LocalOptions.S3_ENDPOINT + " is for an s3:// archive.path (it is "
                                + archive.orElse("not set") + ")");
            }
            return Optional.empty();
        }
        if (!s3) {
            return Optional.empty();
        }
        String path = archive.get();
        String bucket = URI.create(path).getHost();
        if (bucket == null || !BUCKET.matcher(bucket).matches()) {
            throw ConfigException.invalid(
                    ConfigKeys.ARCHIVE_PATH.name(),
                    path,
                    "expected s3://bucket/prefix with a bucket name of 3 to 63 lower-case letters, digits, dots"
                            + " and hyphens");
        }
        if (fromSavepoint != null && !Files.isDirectory(DATA.resolve(bucket))) {
            // The savepoint's file sink state names multipart uploads and files in that folder.
            throw ConfigException.invalid(
                    ConfigKeys.ARCHIVE_PATH.name(),
                    path,
                    "a resume continues its run's archive on the local S3 emulator, but " + DATA.resolve(bucket)
                            + " is gone; start a new run");
        }
        return Optional.of(bucket);
    }

    /**
     * Points Flink's S3 file system at {@code --s3.endpoint}, when given, for the start-up checks and the run.
     *
     * <p>With an {@code s3://} archive it also loads Hadoop's {@link ShutdownHookManager} on this (the
     * main) thread. Its JVM shutdown hook is a thread that takes the context class loader of the thread
     * that loads the class; S3A loads it in a task, whose user-code class loader the MiniCluster closes
     * when the job ends, and at exit the hook's {@code new Configuration()} then threw "Trying to access
     * closed classloader" (issue 49).
     */
    static void initializeFileSystems(PeriodTablesConfig config, Map<String, String> options) {
        LocalOptions.s3Endpoint(options).ifPresent(endpoint -> initialize(Map.of("s3.endpoint", endpoint.toString())));
        if (config.find(ConfigKeys.ARCHIVE_PATH)
                .filter(p -> p.startsWith("s3://"))
                .isPresent()) {
            ShutdownHookManager.get();
        }
    }

    /**
     * Starts the emulator on {@link #DATA} (which a new run has emptied, {@link RunData}) with the
     * bucket, and points Flink's S3 file system at it.
     */
    static S3Emulator start(String bucket) {
        S3Emulator emulator = S3Emulator.start(DATA, bucket);
        initialize(emulator.flinkOptions());
        return emulator;
    }

    /** The {@code --archive-option}s of {@code query} that read the emulator's archive. */
    static Map<String, String> queryOptions(S3Emulator emulator) {
        return new TreeMap<>(S3Emulator.flinkOptions(emulator.endpoint()));
    }

    /**
     * The DuckDB command that counts the archive's rows per folder on the emulator (httpfs signs
     * its requests, {@code x-amz-content-sha256} included, which s3proxy checks).
     */
    static String duckDbCommand(S3Emulator emulator, String archivePath) {
        URI endpoint = emulator.endpoint();
        return "duckdb -c \"LOAD httpfs; SET s3_endpoint='" + endpoint.getHost() + ":"
                + endpoint.getPort() + "'; SET s3_url_style='path'; SET s3_use_ssl=false; SET s3_region='us-east-1';"
                + " SET s3_access_key_id='" + S3Emulator.ACCESS_KEY + "'; SET s3_secret_access_key='"
                + S3Emulator.SECRET_KEY + "'; " + countQuery(archivePath) + "\"";
    }

    /** The query of {@link #duckDbCommand}: rows per period folder. */
    static String countQuery(String archivePath) {
        String root = archivePath.replaceAll("/+$", "");
        return "SELECT period, count(*) AS rows FROM read_parquet('" + root
                + "/period=*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL";
    }

    private static void initialize(Map<String, String> options) {
        FileSystem.initialize(Configuration.fromMap(options), null);
    }
}
