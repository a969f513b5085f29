package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.owner.MissingTableHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The acknowledged watermark is held by the oldest entry still anywhere in the writer. */
class AcknowledgedWatermarkTest {
    private final AtomicLong watermark = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong elsewhere = new AtomicLong(Long.MAX_VALUE);
    private final AcknowledgedWatermark acknowledged = new AcknowledgedWatermark(watermark::get, elsewhere::get, null);

    @Test
    void anEntryHoldsItAtTheWatermarkItWasMadeAtUntilItsRequestIsAnswered() {
        watermark.set(10);
        acknowledged.received();
        acknowledged.received();
        watermark.set(20);
        acknowledged.received();
        watermark.set(30);
        assertThat(acknowledged.value())
                .as("two entries of watermark 10 in the buffer")
                .isEqualTo(10);

        acknowledged.submitted(2);
        long request = acknowledged.sent(List.of(entry(10), entry(10)));
        assertThat(acknowledged.value()).as("in flight").isEqualTo(10);
        acknowledged.answered(request);
        assertThat(acknowledged.value())
                .as("the third, made at 20, is still buffered")
                .isEqualTo(20);

        acknowledged.submitted(1);
        elsewhere.set(20); // DynamoDB left it unprocessed: the delay queue holds it
        assertThat(acknowledged.value()).isEqualTo(20);
        elsewhere.set(Long.MAX_VALUE);
        assertThat(acknowledged.value()).as("nothing held: the watermark").isEqualTo(30);
    }

    @Test
    void entriesRestoredFromACheckpointHoldItBelowEveryWatermarkUntilWritten() {
        acknowledged.restored(3);
        watermark.set(1_000);
        acknowledged.received();
        assertThat(acknowledged.value()).isEqualTo(Long.MIN_VALUE);
        acknowledged.submitted(3);
        long request = acknowledged.sent(List.of(entry(Long.MIN_VALUE), entry(Long.MIN_VALUE), entry(Long.MIN_VALUE)));
        assertThat(acknowledged.value()).isEqualTo(Long.MIN_VALUE);
        acknowledged.answered(request);
        assertThat(acknowledged.value()).isEqualTo(1_000);
    }

    @Test
    void requestsInFlightAreCountedOneByOne() {
        watermark.set(5);
        long first = acknowledged.sent(List.of(entry(5)));
        long second = acknowledged.sent(List.of(entry(5), entry(7)));
        watermark.set(9);
        acknowledged.answered(first);
        assertThat(acknowledged.value()).as("the second request still holds 5").isEqualTo(5);
        acknowledged.answered(second);
        assertThat(acknowledged.value()).isEqualTo(9);
    }

    private static TableWriteEntry entry(long mark) {
        return new TableWriteEntry(
                "t",
                Map.of("pk", AttributeValue.fromS("d"), "sk", AttributeValue.fromS("s" + mark)),
                10,
                0,
                new TableWriteEntry.Origin(MissingTableHandler.Arrival.ON_TIME, mark, mark));
    }
}
