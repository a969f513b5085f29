package io.periodtables.verification;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.Kinesalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * The command end to end against dynalite and kinesalite behind their fidelity layers (the limits
 * on): the real job on a MiniCluster, the data set, the split, every check passing, nothing left.
 */
class VerifyCommandITCase {
    private static Dynalite dynalite;
    private static Kinesalite kinesalite;

    @BeforeAll
    static void startEmulators() {
        dynalite = Dynalite.start();
        kinesalite = Kinesalite.start();
    }

    @AfterAll
    static void stopEmulators() {
        kinesalite.close();
        dynalite.close();
    }

    @Test
    void everyCheckPassesOnTheEmulatorsAndTheRunLeavesNothingBehind() {
        VerifyRuns.Outcome outcome = VerifyRuns.run(dynalite, kinesalite, RunResources::randomName, "--yes");

        assertThat(outcome.starting("FAIL")).isEmpty();
        assertThat(outcome.starting("PASS"))
                .extracting(line -> line.substring(5, line.indexOf(": expected")))
                .containsExactly(
                        "every reading once in its period table with its payload",
                        "duplicates stored once",
                        "the late reading in the late table only",
                        "bad input in the rejected table with its reason",
                        "next period's table prebuilt before its first reading",
                        "closed tables lowered",
                        "TTL enabled",
                        "rollups equal to the stored items",
                        "latest equal to the newest item",
                        "the watermark past the reshard");
        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.starting("Deleted stream verify-")).hasSize(1);
        try (DynamoDbClient dynamo = dynalite.syncClient();
                KinesisClient kinesis = kinesalite.kinesisClient()) {
            assertThat(VerifyRuns.leftovers(dynamo, kinesis)).isEmpty();
        }
    }
}
