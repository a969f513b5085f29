package io.periodtables.rotation.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.controlplane.TableManagerSettings;
import io.periodtables.rotation.lifecycle.TableLoad;
import io.periodtables.rotation.reconcile.RotationEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * The rotation operator's end of input ({@code finish()}), in Flink's operator test harness
 * against dynalite. Flink takes a job's final checkpoint only once every operator has finished,
 * so what {@code finish()} waits for delays the end of a bounded run and a drained stop.
 */
class RotationFinishITCase {
    private static final Instant W = Instant.parse("2021-03-01T10:30:00Z");
    /** How long the fidelity layer keeps a warm throughput UPDATING after an UpdateTable. */
    private static final Duration WARMING = Duration.ofSeconds(30);

    private final Dynalite local = TestSetup.dynamoDb();

    @Test
    void theEndOfInputDoesNotWaitForATableToWarm() throws Exception {
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("finish"),
                "tables.period",
                "PT1H",
                "rollups.every",
                "PT1M");
        Period open = config.calendar().periodOf(W);
        Period next = config.calendar().next(open);
        String nextRollups = config.naming().rollupsTable(next);
        try (TableManager other = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            other.ensure(next).join();
            other.ensureRollupsTable(next).join(); // created cold by someone else: the rotation prewarms it
        }
        TestSetup.awaitActive(local, config.naming().periodTable(next));
        TestSetup.awaitActive(local, nextRollups);
        // The rotation would ask for the warm throughput for minutes, and give up only after them.
        TableManagerSettings asksLong = TableManagerSettings.builder()
                .pollInterval(Duration.ofMillis(20))
                .backoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .maxDeferrals(1_000)
                .build();
        RotationOptions options = new RotationOptions(
                config,
                TestSetup.clients(config),
                asksLong,
                Duration.ofMinutes(10),
                Duration.ofMinutes(10), // finishTimeout: far beyond WARMING
                null,
                List.of(),
                "");
        local.layer().tableStates(WARMING);
        TableDescription atFinish;
        try (OneInputStreamOperatorTestHarness<Long, RotationEvent> harness = new OneInputStreamOperatorTestHarness<>(
                new RotationOperatorFactory<Long>(options), LongSerializer.INSTANCE)) {
            harness.setProcessingTime(System.currentTimeMillis());
            harness.open();
            @SuppressWarnings("unchecked")
            RotationOperator<Long> rotation = (RotationOperator<Long>) harness.getOneInputOperator();
            // the rollups peak of the period the next rollups table is sized from (three back, with allowed lateness)
            Period sizing = config.calendar().previous(config.calendar().previous(open));
            rotation.processElement2(
                    new StreamRecord<>(new TableLoad(config.naming().rollupsTable(sizing), 1, 6_000)));
            harness.processWatermark(open.end().minusSeconds(60).toEpochMilli());
            while (TestSetup.describe(local, nextRollups).warmThroughput() == null) {
                runMail(harness.getTaskMailbox()); // until DynamoDB has the prewarm's UpdateTable
            }
            harness.endInput();
            harness.close(); // finish(), then close()
            atFinish = TestSetup.describe(local, nextRollups);
        } finally {
            local.layer().reset();
        }
        assertThat(atFinish.warmThroughput().writeUnitsPerSecond())
                .as("prewarmed: ceil(6,000 / 0.7)")
                .isEqualTo(8_572L);
        assertThat(atFinish.warmThroughput().status())
                .as("the rotation finished while DynamoDB was still warming the table (for %s)", WARMING)
                .isEqualTo(TableStatus.UPDATING);
    }

    private static void runMail(TaskMailbox mailbox) throws Exception {
        Optional<Mail> mail = mailbox.tryTake(TaskMailbox.MIN_PRIORITY);
        if (mail.isPresent()) {
            mail.get().run();
        } else {
            Thread.sleep(10);
        }
    }
}
