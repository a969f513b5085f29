package io.periodtables.sink.latest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.periodtables.core.item.WriteSharding;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The latest writer's puts against an in-memory latest table answering after a set round trip. */
class LatestWriterTest {
    /** How long a writer may take to answer what a test asks, however loaded the machine. */
    private static final Duration BOUND = Duration.ofSeconds(60);

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
     * status UPDATING, the table ACTIVE) and takes writes meanwhile. With more devices than the
     * writer holds (50 here, 10,000 and more in production), waiting for ACTIVE held {@code write()},
     * and with it the windows and the period sink chained to it, for as long as the warm-up took:
     * here for ever. The puts go on while it warms.
     */
    @Test
    void aWarmingTableTakesPutsAndWriteNeverWaitsForTheWarmUp() {
        FakeLatestTable table = new FakeLatestTable(Duration.ofMillis(1), Integer.MAX_VALUE).raised(8_000);
        assertTimeoutPreemptively(
                BOUND,
                () -> {
                    // the harness's mailbox belongs to the thread that creates it: this one
                    try (WriterHarness harness = new WriterHarness(table, 1, 50, "latest.warm-writes", "8000")) {
                        for (int device = 0; device < 200; device++) {
                            harness.writer.write(WriterHarness.reading(device, 1), null);
                        }
                        harness.writer.flush(false);
                    }
                },
                "write() and the checkpoint's flush of 200 devices, 50 held at most, while the warm throughput is"
                        + " UPDATING");

        assertThat(table.puts()).as("puts stored").isEqualTo(200);
        assertThat(table.putsWhileWarming())
                .as("puts sent while the warm throughput was UPDATING")
                .isEqualTo(200);
    }

    /**
     * {@code latest.interval} = PT1M, 100 devices each reporting every 10 s for 10 minutes: a
     * device's latest item is never older than the newest reading it was given an interval before
     * (checked every second), a checkpoint puts every device's newest, and each device costs a put
     * a minute, not one per reading (6 readings a minute).
     */
    @Test
    void aMinuteIntervalPutsEachDevicesNewestOnceAMinuteAndAtTheCheckpoint() throws Exception {
        int devices = 100;
        int seconds = 600;
        FakeLatestTable table = new FakeLatestTable(Duration.ofMillis(1));
        Map<String, NavigableMap<Integer, String>> given = new HashMap<>();
        try (WriterHarness harness = new WriterHarness(table, 0, "latest.interval", "PT1M")) {
            for (int second = 0; second < seconds; second++) {
                for (int device = second % 10; device < devices; device += 10) {
                    SinkRecord reading = WriterHarness.reading(device, second * 1000L);
                    harness.writer.write(reading, null);
                    given.computeIfAbsent(reading.reading().deviceId(), d -> new TreeMap<>())
                            .put(second, WriteSharding.sortKeyOf(reading.reading()));
                }
                harness.nextSecond();
                harness.awaitAnswered(table, BOUND);
                int now = second + 1;
                given.forEach((device, readings) -> {
                    Map.Entry<Integer, String> due = readings.floorEntry(now - 60);
                    if (due != null) {
                        assertThat(table.lastPutOf(device))
                                .as(
                                        "%s's latest put at %d s: not older than its reading of %d s",
                                        device, now, due.getKey())
                                .isNotNull()
                                .isGreaterThanOrEqualTo(due.getValue());
                    }
                });
            }
            for (int device = 0; device < devices; device++) {
                harness.writer.write(WriterHarness.reading(device, seconds * 1000L + device), null);
            }
            harness.writer.flush(false); // a checkpoint
        }

        for (int device = 0; device < devices; device++) {
            String id = "dev-" + device;
            assertThat(table.lastPutOf(id))
                    .as("%s's latest put after the checkpoint", id)
                    .isEqualTo(WriteSharding.sortKeyOf(WriterHarness.reading(device, seconds * 1000L + device)
                            .reading()));
            assertThat(table.putsOf(id))
                    .as("%s's puts over %d minutes of a reading every 10 s, and the checkpoint", id, seconds / 60)
                    .isBetween(seconds / 60, seconds / 60 + 2);
        }
    }

    /**
     * Large readings: 2,000 devices of 30 KB each are about 120 MB of heap, past the 64 MB a writer
     * holds at most. Before any interval passes, the writer sends what it holds instead of holding
     * more, and a checkpoint still puts every device's reading.
     */
    @Test
    void aWriterHoldsAtMostItsBytesOfReadingsAndSendsBeforeTheIntervalWhenFull() throws Exception {
        FakeLatestTable table = new FakeLatestTable(Duration.ofMillis(1));
        String payload = "{\"blob\":\"" + "x".repeat(30_000) + "\"}";
        int devices = 2_000;
        int sentBeforeAnyTick;
        try (WriterHarness harness = new WriterHarness(table, 0)) {
            for (int device = 0; device < devices; device++) {
                harness.writer.write(
                        SinkRecord.period(new Reading(
                                "dev-" + device, WriterHarness.HOUR.toEpochMilli() + device, null, payload)),
                        null);
            }
            sentBeforeAnyTick = table.sent();
            harness.writer.flush(false);
        }

        long bound = LatestWriter.MAX_PENDING_BYTES / LatestWriter.bytesOf(new Reading("dev-0000", 0, null, payload));
        assertThat(sentBeforeAnyTick)
                .as("puts sent before any interval passed (the writer holds about %d such readings)", bound)
                .isGreaterThanOrEqualTo((int) (devices - bound - 1));
        assertThat(table.puts()).as("puts stored after the checkpoint").isEqualTo(devices);
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
