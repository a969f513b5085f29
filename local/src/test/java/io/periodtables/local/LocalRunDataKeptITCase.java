package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.emulators.Dynalite;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * A start that is refused leaves what the last run stored as it was: every check that can refuse a
 * run comes before a new run empties {@code .flink-local}. Two real runs, then three starts that
 * once went ahead on the second run's data (issue 59): an archive the run cannot write, a negative
 * duration, and a resume of the first run's savepoint, whose data the second run replaced.
 */
class LocalRunDataKeptITCase {
    private static final String PREFIX = "kept";
    private static final Pattern SAVEPOINT = Pattern.compile("(?m)^Savepoint: (\\S+)$");

    @Test
    void refusedStartsKeepEveryTableAndItemOfTheLastRun(@TempDir Path dir) throws Exception {
        String older = savepointOf(run(dir));
        ChildJvm newer = run(dir);
        String newest = savepointOf(newer);
        Map<String, Long> stored = tables(dir);
        assertThat(stored)
                .as("the newer run's tables, as its summary lists them")
                .containsAllEntriesOf(
                        LocalRunSummary.parse(newer.stdout(), PREFIX).items());

        SoftAssertions refusals = new SoftAssertions();
        ChildJvm archive = refused(dir, refusals, "--archive.path", "file:///proc/pt-archive", "--duration", "PT10S");
        refusals.assertThat(archive.stderr().strip())
                .startsWith("Invalid configuration: archive.path = 'file:///proc/pt-archive': this run cannot write"
                        + " there (");
        refusals.assertThat(tables(dir))
                .as("tables after the unwritable archive")
                .isEqualTo(stored);

        ChildJvm negative = refused(dir, refusals, "--duration", "-PT5S");
        refusals.assertThat(negative.stderr().strip())
                .isEqualTo(
                        "Invalid argument: --duration = '-PT5S': expected a positive ISO-8601 duration such as PT30S");
        refusals.assertThat(tables(dir))
                .as("tables after the negative duration")
                .isEqualTo(stored);

        ChildJvm otherRun = refused(dir, refusals, "--from-savepoint", older, "--duration", "PT5S");
        refusals.assertThat(otherRun.stderr().strip())
                .startsWith("Cannot resume " + Path.of(URI.create(older)) + " (of the run started ")
                .contains(" holds the data of another run, started ")
                .endsWith("resume it with --from-savepoint " + Path.of(URI.create(newest))
                        + ", or start a new run without --from-savepoint (it starts empty)");
        refusals.assertThat(tables(dir))
                .as("tables after the older run's resume")
                .isEqualTo(stored);
        // (a resume of the run whose data it is goes on: LocalRunResumeITCase, LocalS3ArchiveITCase)
        refusals.assertAll();
    }

    private static ChildJvm run(Path dir) throws Exception {
        return DemoRun.in(dir)
                .with("tables.prefix", PREFIX)
                .with("rollups.every", "PT10S")
                .with("duration", "PT5S")
                .run();
    }

    /** A start that ends with exit status 2 and one line on stderr, nothing on stdout about a run. */
    private static ChildJvm refused(Path dir, SoftAssertions softly, String... args) throws Exception {
        ChildJvm run = ChildJvm.start(dir, LocalRunner.class, args);
        run.waitFor();
        softly.assertThat(run.exitCode())
                .as(String.join(" ", args) + ":\n" + run.stdout() + run.stderr())
                .isEqualTo(2);
        softly.assertThat(run.stderr().strip()).as(String.join(" ", args)).doesNotContain("\n");
        softly.assertThat(run.stdout()).as(String.join(" ", args)).doesNotContain("dynalite", "Flink Web UI");
        return run;
    }

    private static String savepointOf(ChildJvm run) throws Exception {
        Matcher savepoint = SAVEPOINT.matcher(run.stdout());
        assertThat(savepoint.find()).as(run.stdout()).isTrue();
        return savepoint.group(1);
    }

    /** Items per table of the prefix in the run's dynalite data, read with no limit enforced. */
    private static Map<String, Long> tables(Path dir) {
        Map<String, Long> items = new TreeMap<>();
        try (Dynalite dynamoDb = Dynalite.launcher()
                        .dataDir(dir.resolve(Dynalite.LOCAL_RUN_DATA))
                        .limits(Set.of())
                        .start();
                DynamoDbClient client = dynamoDb.syncClient()) {
            client.listTablesPaginator().tableNames().stream()
                    .filter(t -> t.startsWith(PREFIX + "_"))
                    .forEach(t -> items.put(
                            t,
                            client.scanPaginator(b -> b.tableName(t).select(Select.COUNT)).stream()
                                    .mapToLong(page -> page.count())
                                    .sum()));
        }
        return items;
    }
}
