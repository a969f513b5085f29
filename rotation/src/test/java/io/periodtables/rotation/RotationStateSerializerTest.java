package io.periodtables.rotation;

import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.Period;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RotationStateSerializerTest {

    @Test
    void stateSurvivesARoundTripWithItsVersion() throws IOException {
        RotationState state = new RotationState();
        state.watermark = Instant.parse("2030-03-10T10:47:00Z").toEpochMilli();
        state.retentionPeriodLabel = "2030-03-10T1000";
        state.put(new TrackedTable("readings_2030-03-10T1000", period("10"), true, CapacityTier.CURRENT));
        state.put(new TrackedTable("readings_2030-03-10T1100", period("11"), false, CapacityTier.CURRENT));
        state.put(new TrackedTable("readings_2030-03-10T0900", period("09"), true, CapacityTier.PREVIOUS));

        byte[] bytes = SimpleVersionedSerialization.writeVersionAndSerialize(RotationStateSerializer.INSTANCE, state);
        RotationState back = SimpleVersionedSerialization.readVersionAndDeSerialize(RotationStateSerializer.INSTANCE, bytes);

        assertThat(back.toString()).isEqualTo(state.toString());
        assertThat(back.get("readings_2030-03-10T0900").period).isEqualTo(period("09"));
        assertThat(back.get("readings_2030-03-10T0900").tier).isEqualTo(CapacityTier.PREVIOUS);
        assertThat(back.get("readings_2030-03-10T1100").ensured).isFalse();
    }

    @Test
    void anEmptyFirstStateSurvivesARoundTrip() throws IOException {
        RotationState back = RotationStateSerializer.INSTANCE.deserialize(1,
                RotationStateSerializer.INSTANCE.serialize(new RotationState()));
        assertThat(back.hasWatermark()).isFalse();
        assertThat(back.retentionPeriodLabel).isNull();
        assertThat(back.tables()).isEmpty();
    }

    @Test
    void anUnknownVersionIsRefusedWithAMessage() {
        assertThatThrownBy(() -> RotationStateSerializer.INSTANCE.deserialize(7, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 7");
    }

    @Test
    void rotationEventsTravelAsPojosNotKryo() {
        assertThat(TypeInformation.of(RotationEvent.class)).isInstanceOf(PojoTypeInfo.class);
    }

    private static Period period(String hour) {
        Instant start = Instant.parse("2030-03-10T" + hour + ":00:00Z");
        return new Period(start, start.plusSeconds(3600), "2030-03-10T" + hour + "00");
    }
}
