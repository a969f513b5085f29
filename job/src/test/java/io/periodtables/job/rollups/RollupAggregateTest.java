package io.periodtables.job.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.Rollups;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** A bucket's running aggregate: exact statistics in any order, its state format, and copies that stand alone. */
class RollupAggregateTest {
    private static final Duration GRAIN = Duration.ofMinutes(1);

    @Test
    void theSameReadingsInAnyOrderGiveTheSameBucket() {
        RollupAggregate forward = new RollupAggregate();
        forward.add(1000, "a", Map.of("t", new BigDecimal("0.1")));
        forward.add(2000, "b", Map.of("t", new BigDecimal("0.2"), "h", new BigDecimal("5")));
        forward.add(2000, "c", Map.of("t", new BigDecimal("-3E+1")));
        RollupAggregate backward = new RollupAggregate();
        backward.add(2000, "c", Map.of("t", new BigDecimal("-3E+1")));
        backward.add(2000, "b", Map.of("t", new BigDecimal("0.2"), "h", new BigDecimal("5")));
        backward.add(1000, "a", Map.of("t", new BigDecimal("0.1")));

        Rollups.Bucket bucket = forward.bucket("d", GRAIN, 0);
        assertThat(backward.bucket("d", GRAIN, 0)).isEqualTo(bucket);
        Rollups.FieldStats t = bucket.fields().get("t");
        assertThat(t.count()).isEqualTo(3);
        assertThat(t.sum()).isEqualByComparingTo("-29.7"); // exact, no binary rounding
        assertThat(t.min()).isEqualByComparingTo("-30");
        assertThat(t.first()).isEqualByComparingTo("0.1");
        assertThat(t.last()).isEqualByComparingTo("-30"); // same instant as b: the greater sort key
        assertThat(bucket.fields().get("h").count()).isEqualTo(1);
        assertThat(bucket.readings()).isEqualTo(3);
    }

    @Test
    void stateRoundTripsThroughItsSerializerAndCopiesAreIndependent() throws Exception {
        RollupAggregate aggregate = new RollupAggregate();
        aggregate.add(1000, "a", Map.of("t", new BigDecimal("21.50")));
        DataOutputSerializer out = new DataOutputSerializer(64);
        RollupAggregate.Serializer.INSTANCE.serialize(aggregate, out);
        RollupAggregate read =
                RollupAggregate.Serializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(read.bucket("d", GRAIN, 0)).isEqualTo(aggregate.bucket("d", GRAIN, 0));
        assertThat(read.changed()).isTrue();

        RollupAggregate copy = RollupAggregate.Serializer.INSTANCE.copy(aggregate);
        aggregate.add(2000, "b", Map.of("t", new BigDecimal("1")));
        assertThat(copy.bucket("d", GRAIN, 0).readings()).isEqualTo(1);
    }
}
