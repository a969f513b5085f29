package io.periodtables.query.cli;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.query.QueryFailedException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.UnsupportedFileSystemSchemeException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;

/** What the {@code query} commands share: the job's configuration keys, the output streams, typed option values. */
public final class CliOptions {

    private CliOptions() {}

    /** Where a command prints: readings and plans to {@code out}, reports and errors to {@code err}. */
    record Streams(PrintStream out, PrintStream err) {}

    /**
     * The job's configuration from the arguments that are none of the command's own options
     * (a command's {@code @Unmatched}): {@code --key value} or {@code --config file.properties},
     * validated by {@link ConfigLoader}.
     */
    static PeriodTablesConfig configuration(List<String> unmatched) {
        String[] args = unmatched.toArray(String[]::new);
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--config") && i + 1 < args.length) {
                args[i + 1] = where(args[i + 1]).toString();
            } else if (args[i].startsWith("--config=")) {
                args[i] = "--config=" + where(args[i].substring("--config=".length()));
            }
        }
        return ConfigLoader.load(args, Map.of(), true);
    }

    /** The directory the user ran {@code ./query/run-query} in (the script runs Java elsewhere). */
    static final String CWD_PROPERTY = "periodtables.query.cwd";

    /** A path the user gave, resolved where the user stands. */
    static Path where(String text) {
        return Path.of(System.getProperty(CWD_PROPERTY, "")).resolve(text);
    }

    /** Where {@code ./run-local} writes its run's configuration, relative to where the user stands. */
    static final Path LOCAL_RUN_CONFIG = Path.of(".flink-local", "run.properties");

    /**
     * The job's configuration, as {@link #configuration}, for a command that reads DynamoDB. When
     * the command line says nothing about where DynamoDB is (no {@code --config}, no {@code
     * dynamodb.*} or {@code aws.*} key) and a local run's {@link #LOCAL_RUN_CONFIG} is where the
     * user stands, that file is the configuration under the command line's keys.
     */
    static DynamoDbTarget dynamoDbConfiguration(List<String> unmatched) {
        Path localRun = where(LOCAL_RUN_CONFIG.toString());
        List<String> args = new ArrayList<>(unmatched);
        boolean useLocalRun = Files.isRegularFile(localRun)
                && args.stream()
                        .noneMatch(a -> a.equals("--config")
                                || a.startsWith("--config=")
                                || a.startsWith("--dynamodb.")
                                || a.startsWith("--aws."));
        if (useLocalRun) {
            args.addAll(0, List.of("--config", LOCAL_RUN_CONFIG.toString()));
        }
        return new DynamoDbTarget(configuration(args), useLocalRun ? Optional.of(localRun) : Optional.empty());
    }

    /** A reading command's configuration and the local run's file it came from, if it did. */
    record DynamoDbTarget(PeriodTablesConfig config, Optional<Path> localRun) {
        /**
         * Once the command line is checked, before anything is read or printed: a configuration taken
         * from {@link #LOCAL_RUN_CONFIG} is noted on {@code err} first, so that what follows says which
         * file it came from; then an endpoint override that takes no connection stops the command,
         * naming the endpoint and what to do, and so does AWS without credentials (one line naming the
         * region and {@code --config .flink-local/run.properties} instead of the SDK's list of every
         * provider it tried).
         */
        void check(PrintStream err) {
            localRun.ifPresent(file -> err.println("configuration: " + file
                    + " (the last local run's, found where you stand; --config FILE or --dynamodb.endpoint URL"
                    + " reads elsewhere)"));
            Optional<URI> override = config.dynamoDbEndpoint();
            override.ifPresent(endpoint -> {
                int port =
                        endpoint.getPort() >= 0 ? endpoint.getPort() : "https".equals(endpoint.getScheme()) ? 443 : 80;
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(endpoint.getHost(), port), 2_000);
                } catch (IOException | IllegalArgumentException e) {
                    throw new QueryFailedException(
                            "DynamoDB at " + endpoint + " does not answer (" + e.getMessage() + "): "
                                    + whatToDo(config, endpoint),
                            e);
                }
            });
            if (override.isEmpty() || !DynamoDbClients.isLoopback(override.get())) {
                checkCredentials(config, override);
            }
        }
    }

    /**
     * AWS credentials from the default chain (as the client will look for them), or one line: the
     * SDK's own message lists every provider of the chain with its reason, some 1,400 characters.
     */
    private static void checkCredentials(PeriodTablesConfig config, Optional<URI> override) {
        String region = config.get(ConfigKeys.AWS_REGION);
        try (DefaultCredentialsProvider credentials =
                DefaultCredentialsProvider.builder().build()) {
            credentials.resolveCredentials();
        } catch (SdkClientException e) {
            throw new QueryFailedException(
                    "No AWS credentials for DynamoDB "
                            + override.map(u -> "at " + u).orElse("in " + region + " (AWS; no dynamodb.endpoint given)")
                            + ": for a local run's data give --config .flink-local/run.properties"
                            + " (./run-local writes it, ./run-local --serve serves its data again); for AWS set"
                            + " credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID, ...) and --aws.region",
                    e);
        }
    }

    private static String whatToDo(PeriodTablesConfig config, URI endpoint) {
        boolean loopback;
        try {
            loopback = InetAddress.getByName(endpoint.getHost()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            loopback = false;
        }
        return loopback && config.get(ConfigKeys.DYNAMODB_EMBEDDED)
                ? "a local run's dynalite ends with the run; ./run-local --serve serves its data again and points"
                        + " .flink-local/run.properties at it"
                : "start it, or give the endpoint that serves the tables with --dynamodb.endpoint";
    }

    /**
     * {@code --archive}: the job's {@code archive.path} (its rule: a URI with a scheme and a
     * bucket or absolute path) or an absolute local path, whose scheme Flink has a file system
     * for once {@code options} (the {@code --archive-option}s) are applied. Checked before
     * anything is read: a table is read from the archive only once it is found missing, so a
     * bad value would otherwise pass unnoticed.
     */
    static String archive(String text, Map<String, String> options) {
        String path;
        try {
            path = ConfigKeys.ARCHIVE_PATH.parse(
                    text.startsWith("/") ? Path.of(text).toUri().toString() : text);
        } catch (ConfigException e) {
            throw new IllegalArgumentException("--archive '" + text + "': expected the job's archive.path, a URI such"
                    + " as s3://bucket/prefix or file:///var/archive, or an absolute path");
        }
        if (!options.isEmpty()) {
            FileSystem.initialize(Configuration.fromMap(options), null);
        }
        org.apache.flink.core.fs.Path root = new org.apache.flink.core.fs.Path(path);
        try {
            root.getFileSystem();
        } catch (UnsupportedFileSystemSchemeException e) {
            throw new IllegalArgumentException("--archive '" + text + "': Flink has no file system for the scheme '"
                    + root.toUri().getScheme() + "' (query reads file:// and s3://)");
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot open the file system of --archive " + text + ": " + e.getMessage(), e);
        }
        return path;
    }

    /** A number >= 0; {@code _} and {@code ,} may group digits. */
    static final class NonNegative implements ITypeConverter<Double> {
        @Override
        public Double convert(String text) {
            try {
                double value = Double.parseDouble(text.replace("_", "").replace(",", ""));
                if (value >= 0 && Double.isFinite(value)) {
                    return value;
                }
            } catch (NumberFormatException ignored) {
                // reported below
            }
            throw new TypeConversionException("'" + text + "': expected a number >= 0");
        }
    }

    /** An ISO-8601 duration such as {@code P30D}, in any case. */
    static final class IsoDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            try {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + text + "': expected an ISO-8601 duration such as P30D");
            }
        }
    }

    /**
     * An ISO-8601 instant (offsets allowed), a date (its start in {@code zone}, the configured
     * {@code tables.zone}, hence parsed after the configuration) or epoch milliseconds.
     */
    static Instant instant(String option, String text, ZoneId zone) {
        try {
            if (text.matches("-?\\d{1,18}")) {
                return Instant.ofEpochMilli(Long.parseLong(text));
            }
            if (text.matches("\\d{4}-\\d{2}-\\d{2}")) {
                return LocalDate.parse(text).atStartOfDay(zone).toInstant();
            }
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(option + " '" + text
                    + "': expected an ISO-8601 instant (2026-11-22T13:00:00Z), a date (2026-11-22) or epoch"
                    + " milliseconds");
        }
    }
}
