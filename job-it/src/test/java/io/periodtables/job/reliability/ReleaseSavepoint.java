package io.periodtables.job.reliability;

import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.util.MiniClusterWithClientResource;
import org.awaitility.Awaitility;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A savepoint of a release with the world it was taken in, kept under {@code
 * src/test/resources/release-savepoint} for {@link ReleaseSavepointITCase}: the {@link
 * Fleet} on the production topology (rollups, latest, archive, late table), stopped with a
 * canonical savepoint once the late reading is stored, together with dynalite's data directory
 * and the archive at that moment. The archive's file sink keeps absolute paths in its state,
 * so the archive lives at {@link #ARCHIVE} in both runs.
 *
 * <p>To take it again on a release: {@code mvn -o -q -pl job-it -am test-compile
 * dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test}, then {@code
 * java -cp job-it/target/test-classes:job-it/target/classes:$(cat /tmp/cp.txt)
 * io.periodtables.job.reliability.ReleaseSavepoint job-it/src/test/resources/release-savepoint}.
 */
final class ReleaseSavepoint {
    static final String PREFIX = "release";
    static final Path ARCHIVE = Path.of("/tmp/period-tables-release-savepoint-archive");
    static final String SAVEPOINT = "savepoint";
    static final String DYNAMODB = "dynamodb";
    static final String ARCHIVED = "archive";
    static final String RUN = "run.properties";

    private static final Duration BOUND = Duration.ofSeconds(120);

    private ReleaseSavepoint() {}

    /** The configuration both runs use: rollups, the latest table (the default) and the archive. */
    static PeriodTablesConfig config(URI dynamoDb) {
        return ReliabilityRun.config(
                dynamoDb,
                PREFIX,
                "rollups.every",
                "PT15M,PT1H",
                "archive.path",
                ARCHIVE.toUri().toString());
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]).toAbsolutePath();
        delete(out);
        delete(ARCHIVE);
        MiniClusterWithClientResource flink =
                new MiniClusterWithClientResource(new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(2)
                        .setConfiguration(LoopbackFlink.configuration("0"))
                        .build());
        flink.before();
        try (Dynalite dynamoDb = Dynalite.start(out.resolve(DYNAMODB))) {
            ReliabilityRun run = ReliabilityRun.of(config(dynamoDb.endpoint()), Fleet.standard());
            TestSource.Hooks slow = new TestSource.Hooks();
            slow.rate = RateLimiterStrategy.perSecond(15);
            Instant start = Instant.now();
            JobClient job = ArchiveCheck.submit(run, slow, null);
            String savepoint;
            try {
                Awaitility.await("the late reading stored")
                        .atMost(BOUND)
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            try (DynamoDbClient client = dynamoDb.syncClient()) {
                                return !TableSnapshot.read(client, run.config.naming())
                                        .lateTables()
                                        .isEmpty();
                            }
                        });
                savepoint = job.stopWithSavepoint(
                                false, out.resolve(SAVEPOINT).toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(BOUND.toSeconds(), TimeUnit.SECONDS);
            } finally {
                ArchiveCheck.cancelIfRunning(job);
            }
            copy(ARCHIVE, out.resolve(ARCHIVED));
            Properties properties = new Properties();
            properties.setProperty("start", start.toString());
            properties.setProperty(
                    "savepoint", Path.of(URI.create(savepoint)).getFileName().toString());
            try (Writer writer = Files.newBufferedWriter(out.resolve(RUN))) {
                properties.store(writer, "ReleaseSavepoint");
            }
        } finally {
            flink.after();
        }
    }

    static void copy(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
