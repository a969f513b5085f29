package io.periodtables.rotation.owner;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.controlplane.TableManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The table owner raises a table the sink writes to the {@code current} tier after a minute of
 * throttling on end, once: a closed table as a fallback (counted), an open one sized from the
 * fleet's rate that a backfill writes faster (not counted as a closed table's raise).
 */
class ClosedTableFallbackITCase {

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        private Instant now = Instant.parse("2030-03-10T12:30:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }
    }

    @Test
    void aThrottledTableIsRaisedToTheCurrentTierOnlyAfterAMinuteOfThrottling() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("fallback"),
                "tables.period",
                "PT1H",
                "tables.capacity.current",
                "50/5",
                "tables.capacity.older",
                "1/1",
                "tables.capacity.previous",
                "5/5",
                "tables.capacity.autoscaling",
                "false",
                "rotation.closed-raise-after",
                "PT1M");
        Period closedPeriod = config.calendar().periodOf(Instant.parse("2030-03-10T09:00:00Z"));
        Period openPeriod = config.calendar().periodOf(Instant.parse("2030-03-10T12:00:00Z"));
        String closed = config.naming().periodTable(closedPeriod);
        String open = config.naming().periodTable(openPeriod);
        MovingClock clock = new MovingClock();
        try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(4);
                TableManager manager = new TableManager(config, client, TestSetup.fastSettings(), clock)) {
            manager.ensure(closedPeriod, Capacity.provisioned(1, 1)).join();
            manager.ensure(openPeriod, Capacity.provisioned(8, 5)).join(); // sized by the rotation
            TableOwner owner = new TableOwner(manager, config, clock);

            for (int second = 0; second < 60; second += 10) {
                assertThat(owner.throttled(closed).join())
                        .as("throttled for %s s", second)
                        .isFalse();
                assertThat(owner.throttled(open).join()).isFalse();
                clock.advance(Duration.ofSeconds(10));
            }
            assertThat(writeUnits(local, closed)).isEqualTo(1L);

            clock.advance(Duration.ofSeconds(20)); // a pause: the spell starts again
            assertThat(owner.throttled(closed).join()).isFalse();
            for (int second = 10; second < 60; second += 10) {
                clock.advance(Duration.ofSeconds(10));
                assertThat(owner.throttled(closed).join())
                        .as("throttled for %s s", second)
                        .isFalse();
                assertThat(owner.throttled(open).join()).isFalse();
            }
            clock.advance(Duration.ofSeconds(10));
            assertThat(owner.throttled(open).join())
                    .as("the open table's spell is 50 s old")
                    .isFalse();
            assertThat(owner.throttled(closed).join())
                    .as("a minute of throttling on end")
                    .isTrue();
            assertThat(writeUnits(local, closed))
                    .as("raised back to the current tier")
                    .isEqualTo(50L);
            assertThat(owner.throttled(closed).join())
                    .as("asked once per raise interval")
                    .isFalse();
            assertThat(writeUnits(local, open))
                    .as("not raised before a minute of throttling")
                    .isEqualTo(8L);

            clock.advance(Duration.ofSeconds(10));
            assertThat(owner.throttled(open).join())
                    .as("raised, but not a closed table's raise (closedTableRaises)")
                    .isFalse();
            assertThat(writeUnits(local, open))
                    .as("an open table sized from the fleet's rate, written faster by a backfill: the current tier")
                    .isEqualTo(50L);
        }
    }

    private static long writeUnits(Dynalite local, String table) {
        return TestSetup.describe(local, table).provisionedThroughput().writeCapacityUnits();
    }
}
