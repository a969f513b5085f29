package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.archive.ArchiveReader;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.job.JobEnd;
import io.periodtables.job.RollupCheck;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A savepoint of the previous release (commit a725d66, taken by {@link ReleaseSavepoint} in the
 * {@link Fleet}'s last period, the late reading stored) restores on this code in the world it
 * was taken in (its DynamoDB data and archive): the job runs the rest of the input and every
 * table, the rollups, the latest table and the archive hold each reading exactly once.
 */
class ReleaseSavepointITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    private static final Duration BOUND = Duration.ofSeconds(90);

    @Test
    void aSavepointOfThePreviousReleaseRestoresWithEveryReadingOnceInEveryTable(
            @InjectMiniCluster MiniCluster cluster, @TempDir Path dir) throws Exception {
        Path release = Path.of(getClass().getResource("/release-savepoint").toURI());
        Properties taken = new Properties();
        try (Reader reader = Files.newBufferedReader(release.resolve(ReleaseSavepoint.RUN))) {
            taken.load(reader);
        }
        ReleaseSavepoint.copy(release.resolve(ReleaseSavepoint.DYNAMODB), dir);
        Files.deleteIfExists(dir.resolve("LOCK"));
        ReleaseSavepoint.delete(ReleaseSavepoint.ARCHIVE);
        ReleaseSavepoint.copy(release.resolve(ReleaseSavepoint.ARCHIVED), ReleaseSavepoint.ARCHIVE);
        String savepoint = release.resolve(ReleaseSavepoint.SAVEPOINT)
                .resolve(taken.getProperty("savepoint"))
                .toUri()
                .toString();

        try (Dynalite dynamoDb = Dynalite.start(dir)) {
            ReliabilityRun run = ReliabilityRun.of(ReleaseSavepoint.config(dynamoDb.endpoint()), Fleet.standard());
            DynamoDbFaults.reset();
            JobEnd.await(ArchiveCheck.submit(run, new TestSource.Hooks(), savepoint), BOUND, cluster);
            // the savepoint's position, not the input's start: the period it had archived gets no write
            String archived = run.config.naming().periodTableOf(Instant.parse("2025-06-01T08:00:00Z"));
            assertThat(DynamoDbFaults.requests())
                    .as("writes of the restored run")
                    .isNotEmpty()
                    .noneMatch(r ->
                            r.operation().equals("BatchWriteItem") && r.tables().contains(archived));
            run.start = Instant.parse(taken.getProperty("start"));
            run.end = Instant.now();

            TableSnapshot tables = run.assertExactlyOnce(dynamoDb);
            assertThat(tables.lateTables())
                    .as("the late reading of the first run")
                    .isNotEmpty();
            ArchiveCheck.assertMatchesTables(
                    run, new ArchiveReader(ReleaseSavepoint.ARCHIVE.toUri().toString()), dynamoDb);
            Map<String, List<Map<String, AttributeValue>>> items = tables.readingsByTable(run.config.naming());
            try (DynamoDbClient client = dynamoDb.syncClient()) {
                assertThat(RollupCheck.stored(client, run.config))
                        .as("rollups")
                        .isNotEmpty()
                        .isEqualTo(RollupCheck.expected(run.config, items, end -> true));
                assertThat(RollupCheck.latest(client, run.config))
                        .as("latest")
                        .isEqualTo(RollupCheck.expectedLatest(run.config, items));
            }
        } finally {
            ReleaseSavepoint.delete(ReleaseSavepoint.ARCHIVE);
        }
    }
}
