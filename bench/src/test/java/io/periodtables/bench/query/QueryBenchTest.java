package io.periodtables.bench.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.query.StoredReading;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The query benchmark times correct answers only and reports every query at every shard count. */
class QueryBenchTest {

    private static final Instant FROM = Instant.parse("2026-11-20T00:00:00Z");
    private static final Instant TO = FROM.plus(Duration.ofDays(1));

    @Test
    void acceptsTheNewestReadingsNewestFirst() {
        List<StoredReading> newest = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            newest.add(readingAt(TO.minusSeconds(10L * i)));
        }

        QueryBench.check(QueryBench.Kind.LATEST_100, newest, FROM, TO);
        QueryBench.check(QueryBench.Kind.LATEST_1, newest.subList(0, 1), FROM, TO);
    }

    @Test
    void rejectsADayWithAReadingMissing() {
        List<StoredReading> day = new ArrayList<>();
        for (long t = FROM.toEpochMilli() + 10_000; t < TO.toEpochMilli(); t += 10_000) {
            day.add(readingAt(Instant.ofEpochMilli(t)));
        }

        assertThatThrownBy(() -> QueryBench.check(QueryBench.Kind.RANGE, day, FROM, TO))
                .hasMessageContaining("8639 readings, expected 8640");
    }

    @Test
    void reportsEveryQueryAtEveryShardCount() {
        Map<Integer, Map<QueryBench.Kind, List<QueryBench.Sample>>> samples = new LinkedHashMap<>();
        for (int shards : QueryBench.SHARDS) {
            Map<QueryBench.Kind, List<QueryBench.Sample>> byKind = new EnumMap<>(QueryBench.Kind.class);
            for (QueryBench.Kind kind : QueryBench.Kind.values()) {
                List<QueryBench.Sample> runs = new ArrayList<>();
                for (int i = 0; i < QueryBench.WARM_UP + QueryBench.MEASURED; i++) {
                    runs.add(new QueryBench.Sample(10 + i, 24L * shards, Map.of("Query", 24L * shards), 5, 8640));
                }
                byKind.put(kind, runs);
            }
            samples.put(shards, byKind);
        }

        String md = QueryBench.markdown(samples, 200_000, 12.5, "1.00, 1.00, 1.00");

        assertThat(md).startsWith("## 7. Reading back: range and latest\n");
        assertThat(md)
                .contains(
                        "| `range`, one day | 16 | 384 | 384 Query | 8,640 | 10 ms (384 Query) | **17.5 ms (13.0 ms–22.0 ms)** |");
        assertThat(md).contains("| `latest`, n = 1 | 1 |", "| `latest`, n = 100 | 4 |");
    }

    private static StoredReading readingAt(Instant t) {
        return new StoredReading(QueryData.DEVICE, t, t + "#00000000", "t", 0, Map.of(), null);
    }
}
