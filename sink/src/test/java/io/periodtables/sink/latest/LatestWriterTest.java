package io.periodtables.sink.latest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The latest writer's puts against an in-memory latest table answering after a set round trip. */
class LatestWriterTest {

    /**
     * docs/operations.md plans 10,000 readings a second per KPU (a subtask); at worst each is a
     * device of its own, a put each in the same second. At 20 ms a round trip, 10,000 puts a second
     * need 200 in flight at once.
     */
    @Test
    void aSecondOfTenThousandChangedDevicesIsPutWithEnoughInFlightForTwentyMillisecondRoundTrips() throws Exception {
        FakeLatestTable table = new FakeLatestTable(Duration.ofMillis(20));
        try (WriterHarness harness = new WriterHarness(table, 0)) {
            for (int device = 0; device < 10_000; device++) {
                harness.writer.write(WriterHarness.reading(device, 1), null);
            }
            harness.nextSecond();
            harness.writer.flush(false);
        }

        assertThat(table.puts()).as("puts stored").isEqualTo(10_000);
        assertThat(table.mostInFlight())
                .as("puts in flight at once (10,000 a second at 20 ms each)")
                .isGreaterThanOrEqualTo(200);
    }

    /**
     * Another subtask raised the table's warm throughput; DynamoDB applies it asynchronously (its
     * status UPDATING, the table ACTIVE). This subtask's puts wait until it is ACTIVE.
     */
    @Test
    void everySubtasksPutsWaitUntilTheWarmThroughputIsActive() throws Exception {
        FakeLatestTable table = new FakeLatestTable(Duration.ofMillis(1), 3).raised(8_000);
        try (WriterHarness harness = new WriterHarness(table, 1, "latest.warm-writes", "8000")) {
            for (int device = 0; device < 100; device++) {
                harness.writer.write(WriterHarness.reading(device, 1), null);
            }
            harness.nextSecond();
            harness.writer.flush(false);
        }

        assertThat(table.puts()).as("puts stored").isEqualTo(100);
        assertThat(table.putsWhileWarming())
                .as("puts sent while the warm throughput was UPDATING")
                .isZero();
    }

    /** DynamoDB's limit on concurrent table operations passes: the creation is tried again, the puts follow. */
    @Test
    void aTransientLimitOnTableOperationsIsRetried() throws Exception {
        FakeLatestTable table = new FakeLatestTable(Duration.ofMillis(1), 1)
                .refuseCreation(FakeLatestTable.limitExceeded(
                        "Subscriber limit exceeded: too many table operations in progress for this account"));
        try (WriterHarness harness = new WriterHarness(table, 0, "latest.warm-writes", "8000")) {
            for (int device = 0; device < 100; device++) {
                harness.writer.write(WriterHarness.reading(device, 1), null);
            }
            harness.nextSecond();
            harness.writer.flush(false);
        }

        assertThat(table.puts()).as("puts stored").isEqualTo(100);
    }
}
