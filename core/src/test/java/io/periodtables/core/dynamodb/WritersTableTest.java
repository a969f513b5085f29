package io.periodtables.core.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

class WritersTableTest {

    /**
     * A sink rescaled in place from 2 writers to 1: the newest item gives the parallelism that
     * counts. The old writers last wrote at a whole second, which {@code Instant.toString} writes
     * without a fraction ("…:05Z"), the new one half a second later ("…:05.500Z").
     */
    @Test
    void theWriterUpdatedLastGivesTheParallelismAlsoWhenAnEarlierOneWroteAtAWholeSecond() {
        QueryResponse items = QueryResponse.builder()
                .items(
                        item(0, 2, 1_000, "2026-12-07T13:00:05Z"),
                        item(1, 2, 2_000, "2026-12-07T13:00:05Z"),
                        item(0, 1, 7_000, "2026-12-07T13:00:05.500Z"))
                .build();

        assertThat(WritersTable.smallest(items, 0)).isEqualTo(OptionalLong.of(7_000));
    }

    private static Map<String, AttributeValue> item(int subtask, int parallelism, long acknowledged, String updated) {
        return Map.of(
                WritersTable.WRITER, AttributeValue.fromS("period#run"),
                WritersTable.SUBTASK, AttributeValue.fromS(String.format("%05d", subtask)),
                WritersTable.PARALLELISM, AttributeValue.fromN(Integer.toString(parallelism)),
                WritersTable.ATTEMPT, AttributeValue.fromN("0"),
                WritersTable.ACKNOWLEDGED, AttributeValue.fromN(Long.toString(acknowledged)),
                WritersTable.UPDATED, AttributeValue.fromS(updated));
    }
}
