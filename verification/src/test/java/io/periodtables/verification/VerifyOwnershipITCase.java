package io.periodtables.verification;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.Kinesalite;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * What {@code verify} deletes and what it leaves: only tables named {@code verify-<run>_…} with the
 * job's tag and the stream {@code verify-<run>} with the run's tag, after a crash ({@code --cleanup})
 * as after a failed run; and a refused permission said in one line naming the action.
 */
class VerifyOwnershipITCase {
    private static final String CRASHED = "verify-0c0ffee0";
    private static final String FAILING = "verify-feedc0de";

    private static Dynalite dynalite;
    private static Kinesalite kinesalite;
    private static DynamoDbClient dynamo;
    private static KinesisClient kinesis;

    @BeforeAll
    static void startEmulators() {
        dynalite = Dynalite.start();
        kinesalite = Kinesalite.start();
        dynamo = dynalite.syncClient();
        kinesis = kinesalite.kinesisClient();
    }

    @AfterAll
    static void stopEmulators() {
        dynamo.close();
        kinesis.close();
        kinesalite.close();
        dynalite.close();
    }

    @AfterEach
    void allowEverythingAgain() {
        dynalite.layer().reset();
    }

    @Test
    void cleanupDeletesACrashedRunsStreamAndTablesAndNothingElse() {
        kinesalite.createStream(CRASHED, 1);
        kinesis.addTagsToStream(b -> b.streamName(CRASHED).tags(Map.of(RunResources.TAG, CRASHED)));
        String untaggedStream = "verify-0dd00dd0";
        kinesalite.createStream(untaggedStream, 1);
        String ours = CRASHED + "_2026-12-07T0700";
        String sameNameNoTag = CRASHED + "_mine";
        String taggedOtherPrefix = "readings_2026-12-07T0700";
        table(ours, true);
        table(CRASHED + "_rejected", true);
        table(sameNameNoTag, false);
        table(taggedOtherPrefix, true);
        awaitActive(ours, sameNameNoTag, taggedOtherPrefix);

        VerifyRuns.Outcome outcome =
                VerifyRuns.run(dynalite, kinesalite, RunResources::randomName, "--cleanup", "--yes");

        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.lines())
                .contains(
                        "Deleted table " + ours,
                        "Deleted table " + CRASHED + "_rejected",
                        "Deleted stream " + CRASHED,
                        "Deleted the leftovers of [" + CRASHED + "].");
        assertThat(VerifyRuns.leftovers(dynamo, kinesis)).containsExactlyInAnyOrder(sameNameNoTag, untaggedStream);
        assertThat(dynamo.listTables().tableNames()).contains(taggedOtherPrefix);
        dynamo.deleteTable(b -> b.tableName(sameNameNoTag));
        dynamo.deleteTable(b -> b.tableName(taggedOtherPrefix));
        kinesis.deleteStream(b -> b.streamName(untaggedStream));
    }

    @Test
    void aRefusedPermissionIsOneLineNamingTheAction() {
        dynalite.layer().deny("ListTables");

        VerifyRuns.Outcome outcome =
                VerifyRuns.run(dynalite, kinesalite, RunResources::randomName, "--cleanup", "--yes");

        assertThat(outcome.exitCode()).isEqualTo(1);
        assertThat(outcome.lines().get(outcome.lines().size() - 1))
                .isEqualTo("FAIL permissions: expected the caller to be allowed dynamodb:ListTables, found AccessDenied"
                        + " for it (docs/operations.md#verify lists the policy verify needs)");
    }

    /**
     * The run's reading back is refused (Scan) once its stream and tables exist: it says so in one
     * line, stops the job and deletes everything it created, but not a table of its own name without
     * the job's tag.
     */
    @Test
    void aFailedRunLeavesNothingBehindButWhatIsNotItsOwn() {
        String sameNameNoTag = FAILING + "_notes";
        table(sameNameNoTag, false);
        awaitActive(sameNameNoTag);
        dynalite.layer().deny("Scan");

        VerifyRuns.Outcome outcome = VerifyRuns.run(dynalite, kinesalite, () -> FAILING, "--yes");

        assertThat(outcome.exitCode()).isEqualTo(1);
        assertThat(outcome.lines())
                .contains("FAIL permissions: expected the caller to be allowed dynamodb:Scan, found AccessDenied for it"
                        + " (docs/operations.md#verify lists the policy verify needs)")
                .contains("Deleted stream " + FAILING)
                .anyMatch(line -> line.startsWith("Deleted table " + FAILING + "_"));
        assertThat(VerifyRuns.leftovers(dynamo, kinesis)).containsExactly(sameNameNoTag);
        dynamo.deleteTable(b -> b.tableName(sameNameNoTag));
    }

    private static void table(String name, boolean tagged) {
        dynamo.createTable(b -> b.tableName(name)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                .tags(
                        tagged
                                ? List.of(Tag.builder()
                                        .key(TableNaming.MANAGED_BY_TAG)
                                        .value(TableNaming.MANAGED_BY_VALUE)
                                        .build())
                                : List.of()));
    }

    private static void awaitActive(String... tables) {
        for (String table : tables) {
            dynamo.waiter().waitUntilTableExists(b -> b.tableName(table));
        }
    }
}
