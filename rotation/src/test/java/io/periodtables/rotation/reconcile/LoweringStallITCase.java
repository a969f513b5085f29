package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.TestSetup;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * Lowering that cannot learn what the writers have written through (the writers table deleted, or
 * never written for want of permission) keeps closed tables at their tier, and once it has learnt
 * nothing for {@code rotation.lowering-stall-after} of wall-clock time it says so: one ERROR and
 * the gauge {@code loweringStalled}, until the writers report again.
 */
class LoweringStallITCase {
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private AbstractAppender appender;

    @BeforeEach
    void captureErrors() {
        appender =
                new AbstractAppender("stall", null, PatternLayout.createDefaultLayout(), true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        if (event.getLevel() == Level.ERROR) {
                            errors.add(event.getMessage().getFormattedMessage());
                        }
                    }
                };
        appender.start();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getRootLogger().addAppender(appender, Level.ERROR, null);
        context.updateLoggers();
    }

    @AfterEach
    void release() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getRootLogger().removeAppender(appender.getName());
        context.updateLoggers();
        appender.stop();
    }

    @Test
    void loweringThatLearnsNothingForLongerThanTheLimitSaysSoOnceAndKeepsTheTier() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("stall"),
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT10S",
                "window.allowed-lateness",
                "PT5S",
                "rotation.lowering-stall-after",
                "PT10M");
        try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(2)) {
            WritersTable writers = new WritersTable(client, config.naming()); // not created: deleted, or no permission
            Reconciler.Writers job = () -> writers.acknowledged("period", "job-1", 0);
            Instant wall = Instant.parse("2026-11-27T12:00:00Z");
            try (ReconcilerHarness rotation = new ReconcilerHarness(config, wall, null, job)) {
                rotation.start();
                Period period = config.calendar().periodOf(Instant.parse("2021-03-01T10:00:30Z"));
                String table = config.naming().periodTable(period);
                rotation.reconciler.onReading(period.start().plusSeconds(30).toEpochMilli());
                rotation.watermark(period.start().plusSeconds(30));
                long closing = period.end().plusSeconds(6).toEpochMilli();
                rotation.watermark(Instant.ofEpochMilli(closing)).poll().tick();

                rotation.wallClock.addAndGet(Duration.ofMinutes(9).toMillis());
                rotation.poll().tick();
                assertThat(errors).as("within the limit").isEmpty();
                assertThat(rotation.metrics.loweringStalled()).isZero();

                rotation.wallClock.addAndGet(Duration.ofMinutes(2).toMillis());
                rotation.poll().tick();
                rotation.wallClock.addAndGet(Duration.ofMinutes(30).toMillis());
                rotation.poll().tick();
                assertThat(errors)
                        .as("one ERROR naming the writers table and the key")
                        .singleElement()
                        .satisfies(line ->
                                assertThat(line).contains(writers.name()).contains("rotation.lowering-stall-after"));
                assertThat(rotation.metrics.loweringStalled()).isEqualTo(1);
                assertThat(writeUnits(local, table)).as("still waiting").isEqualTo(1000L);

                writers.ensure().join();
                writers.publish(new WritersTable.Writer("period", "job-1", 0, 1, 0), closing, Instant.now())
                        .join();
                rotation.poll().tick();
                assertThat(writeUnits(local, table))
                        .as("lowered once the writers report")
                        .isEqualTo(1L);
                assertThat(errors).hasSize(1);
                assertThat(rotation.metrics.loweringStalled()).isZero();
            }
        }
    }

    private static long writeUnits(Dynalite local, String table) {
        return TestSetup.describe(local, table).provisionedThroughput().writeCapacityUnits();
    }
}
