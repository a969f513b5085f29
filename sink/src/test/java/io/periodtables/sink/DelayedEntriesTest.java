package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.owner.MissingTableHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.connector.base.sink.writer.RequestEntryWrapper;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class DelayedEntriesTest {

    private final DelayedEntries delayed =
            new DelayedEntries(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)));

    @Test
    void throttledTableWaitsItsBackoffAndProbesOneRequestAtATimeWhileAnotherTableSendsAtOnce() {
        delayed.failed("a", entries("a", 0, 30, 1), 1_000);
        delayed.add(entry("b", 0, 1));

        assertThat(delayed.cooling("a")).isTrue();
        assertThat(delayed.cooling("b")).isFalse();
        DelayedEntries.Batch first = delayed.next(1_000, 25);
        assertThat(first.table()).isEqualTo("b");
        assertThat(delayed.next(1_000, 25))
                .as("a backs off (50-100 ms after its first failure)")
                .isNull();
        assertThat(delayed.nextReadyAt()).isBetween(1_050L, 1_100L);

        DelayedEntries.Batch probe = delayed.next(1_100, 25);
        assertThat(probe.table()).isEqualTo("a");
        assertThat(probe.entries()).hasSize(25);
        assertThat(delayed.next(1_100, 25))
                .as("one request at a time while cooling")
                .isNull();

        delayed.failed("a", probe.entries(), 1_150);
        delayed.answered("a");
        assertThat(delayed.nextReadyAt())
                .as("the second failure doubles the backoff")
                .isBetween(1_250L, 1_350L);

        DelayedEntries.Batch again = delayed.next(1_350, 25);
        delayed.succeeded("a");
        delayed.answered("a");
        assertThat(delayed.cooling("a")).isFalse();
        assertThat(delayed.next(1_350, 25))
                .as("healthy again: no waiting, no limit")
                .isNotNull();
        assertThat(again.entries()).hasSize(25);
        assertThat(delayed.size()).isZero();
    }

    @Test
    void newerVersionOfAWaitingKeyTakesItsPlaceSoOnlyOneVersionWaits() {
        delayed.add(entry("a", 7, 1));

        assertThat(delayed.supersede(entry("a", 7, 2))).isTrue();
        assertThat(delayed.supersede(entry("a", 8, 2)))
                .as("no version of this key waits")
                .isFalse();
        assertThat(delayed.size()).isEqualTo(1);
        assertThat(delayed.next(0, 25).entries())
                .singleElement()
                .satisfies(e -> assertThat(e.item().get("v").n()).isEqualTo("2"));
    }

    @Test
    void snapshotHoldsEveryWaitingEntryOfEveryTable() {
        delayed.failed("a", entries("a", 0, 3, 1), 0);
        delayed.add(entry("b", 0, 1));

        List<RequestEntryWrapper<TableWriteEntry>> snapshot = delayed.snapshot();

        assertThat(snapshot)
                .extracting(w ->
                        w.getRequestEntry().table() + "/" + w.getRequestEntry().sk())
                .containsExactlyInAnyOrder("a/s0", "a/s1", "a/s2", "b/s0");
        assertThat(snapshot)
                .allSatisfy(w ->
                        assertThat(w.getSize()).isEqualTo(w.getRequestEntry().sizeBytes()));
    }

    @Test
    void keyInFlightKeepsOnlyTheNewestVersionBehindIt() {
        KeysInFlight keys = new KeysInFlight();

        assertThat(keys.claim(entry("a", 1, 1))).isTrue();
        assertThat(keys.claim(entry("a", 1, 2))).isFalse();
        assertThat(keys.claim(entry("a", 1, 3))).isFalse();
        assertThat(keys.claim(entry("b", 1, 1))).as("another table's key").isTrue();

        assertThat(keys.inFlight(entry("a", 1, 9))).isTrue();
        assertThat(keys.release(entry("a", 1, 1)).item().get("v").n()).isEqualTo("3");
        assertThat(keys.inFlight(entry("a", 1, 9))).isFalse();
        assertThat(keys.release(entry("b", 1, 1))).isNull();
    }

    @Test
    void theSmallestMarkWaitingFollowsEveryEntryInAndOut() {
        delayed.add(marked("a", 1, 30));
        delayed.add(marked("a", 2, 10));
        delayed.failed("a", List.of(marked("a", 3, 20)), 0);
        assertThat(delayed.smallestMark()).isEqualTo(10);

        delayed.supersede(marked("a", 2, 40));
        assertThat(delayed.smallestMark()).as("the version of mark 10 replaced").isEqualTo(20);
        delayed.add(marked("a", 1, 50));
        assertThat(delayed.smallestMark()).isEqualTo(20);

        assertThat(delayed.next(1_000, 1).entries())
                .extracting(TableWriteEntry::sk)
                .containsExactly("s1");
        delayed.answered("a");
        assertThat(delayed.smallestMark()).as("key 1, now of mark 50, taken").isEqualTo(20);
        assertThat(delayed.next(1_000, 1).entries())
                .extracting(TableWriteEntry::sk)
                .containsExactly("s2");
        delayed.answered("a");
        assertThat(delayed.smallestMark()).isEqualTo(20);
        delayed.next(1_000, 1);
        assertThat(delayed.smallestMark()).as("nothing waits").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theSmallestMarkWaitingBehindAKeyInFlightFollowsClaimsAndReleases() {
        KeysInFlight keys = new KeysInFlight();

        keys.claim(marked("a", 1, 5));
        assertThat(keys.smallestMark()).as("in flight, nothing waits").isEqualTo(Long.MAX_VALUE);
        keys.claim(marked("a", 1, 7));
        keys.claim(marked("a", 1, 3));
        keys.claim(marked("a", 2, 1));
        keys.claim(marked("a", 2, 2));
        assertThat(keys.smallestMark())
                .as("the newest waiting version of each key")
                .isEqualTo(2);

        keys.release(marked("a", 2, 1));
        assertThat(keys.smallestMark()).isEqualTo(3);
        keys.release(marked("a", 1, 5));
        assertThat(keys.smallestMark()).isEqualTo(Long.MAX_VALUE);
    }

    /** An entry of key {@code key} made at watermark {@code mark}. */
    private static TableWriteEntry marked(String table, int key, long mark) {
        TableWriteEntry entry = entry(table, key, (int) mark);
        return new TableWriteEntry(
                table,
                entry.item(),
                entry.sizeBytes(),
                0,
                new TableWriteEntry.Origin(MissingTableHandler.Arrival.UNKNOWN, mark, mark));
    }

    private static List<TableWriteEntry> entries(String table, int from, int to, int version) {
        List<TableWriteEntry> entries = new ArrayList<>();
        IntStream.range(from, to).forEach(i -> entries.add(entry(table, i, version)));
        return entries;
    }

    private static TableWriteEntry entry(String table, int key, int version) {
        Map<String, AttributeValue> item = Map.of(
                "pk",
                AttributeValue.fromS("dev-1#0"),
                "sk",
                AttributeValue.fromS("s" + key),
                "v",
                AttributeValue.fromN(Integer.toString(version)));
        return new TableWriteEntry(table, item, 30 + key, 0);
    }
}
