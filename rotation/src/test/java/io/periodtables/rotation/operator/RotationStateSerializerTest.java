package io.periodtables.rotation.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.rotation.lifecycle.TableLoad;
import io.periodtables.rotation.reconcile.RotationEvent;
import io.periodtables.rotation.reconcile.RotationState;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class RotationStateSerializerTest {
    private static final long WATERMARK = Instant.parse("2030-03-10T10:47:00Z").toEpochMilli();

    @Test
    void stateSurvivesARoundTripWithItsVersion() throws IOException {
        RotationState state = new RotationState();
        state.watermark = WATERMARK;

        byte[] bytes = SimpleVersionedSerialization.writeVersionAndSerialize(RotationStateSerializer.INSTANCE, state);
        RotationState back =
                SimpleVersionedSerialization.readVersionAndDeSerialize(RotationStateSerializer.INSTANCE, bytes);

        assertThat(back.watermark).isEqualTo(WATERMARK);
    }

    @Test
    void aVersion1StateFromAnOlderSavepointKeepsItsWatermarkAndDropsItsTrackedTables() throws IOException {
        DataOutputSerializer v1 = new DataOutputSerializer(128);
        v1.writeLong(WATERMARK);
        v1.writeBoolean(true);
        v1.writeUTF("2030-03-10T1000");
        v1.writeInt(1);
        v1.writeUTF("readings_2030-03-10T1000");
        v1.writeLong(0);
        v1.writeLong(3_600_000);
        v1.writeUTF("2030-03-10T1000");
        v1.writeBoolean(true);
        v1.writeUTF("CURRENT");

        RotationState back = RotationStateSerializer.INSTANCE.deserialize(1, v1.getCopyOfBuffer());

        assertThat(back.watermark).isEqualTo(WATERMARK);
    }

    @Test
    void anEmptyFirstStateSurvivesARoundTrip() throws IOException {
        RotationState back = RotationStateSerializer.INSTANCE.deserialize(
                3, RotationStateSerializer.INSTANCE.serialize(new RotationState()));
        assertThat(back.hasWatermark()).isFalse();
        assertThat(back.load.peaks).isEmpty();
    }

    @Test
    void observedPeaksAndOpenSecondsSurviveARoundTrip() throws IOException {
        RotationState state = new RotationState();
        state.watermark = WATERMARK;
        state.load.add(new TableLoad("readings_2030-03-09", 100, 40));
        state.load.add(new TableLoad("readings_2030-03-10", 200, 7));
        state.load.add(new TableLoad("readings_2030-03-10", 200, 5));
        state.load.add(new TableLoad("readings_2030-03-10", 201, 3));

        byte[] bytes = SimpleVersionedSerialization.writeVersionAndSerialize(RotationStateSerializer.INSTANCE, state);
        RotationState back =
                SimpleVersionedSerialization.readVersionAndDeSerialize(RotationStateSerializer.INSTANCE, bytes);

        assertThat(back.load.peaks)
                .containsExactly(Map.entry("readings_2030-03-09", 40L), Map.entry("readings_2030-03-10", 12L));
        assertThat(back.load.open.get("readings_2030-03-10"))
                .containsExactly(Map.entry(200L, 12L), Map.entry(201L, 3L));
        back.load.add(new TableLoad("readings_2030-03-10", 201, 10)); // a partial arriving after the restore adds up
        assertThat(back.load.peakOf("readings_2030-03-10")).hasValue(13);
        assertThat(back.load.firstSeconds)
                .as("where the counting began: a period after it was seen whole")
                .containsExactly(Map.entry("readings", 100L));
    }

    @Test
    void aVersion3StateCountsAsObservedFromItsWatermark() throws IOException {
        DataOutputSerializer v3 = new DataOutputSerializer(64);
        v3.writeLong(WATERMARK);
        v3.writeInt(2);
        v3.writeUTF("readings_2030-03-09");
        v3.writeLong(40);
        v3.writeUTF("readings_rollups_2030-03-09");
        v3.writeLong(9);
        v3.writeInt(0);

        RotationState back = RotationStateSerializer.INSTANCE.deserialize(3, v3.getCopyOfBuffer());

        assertThat(back.load.peaks).containsEntry("readings_2030-03-09", 40L);
        assertThat(back.load.firstSeconds)
                .as("it did not say where its counting began: the period of its watermark counts as seen in part")
                .containsOnly(Map.entry("readings", WATERMARK / 1000), Map.entry("readings_rollups", WATERMARK / 1000));
    }

    @Test
    void aVersion2StateFromTheFormerFormatKeepsItsWatermarkWithNothingObserved() throws IOException {
        DataOutputSerializer v2 = new DataOutputSerializer(8);
        v2.writeLong(WATERMARK);

        RotationState back = RotationStateSerializer.INSTANCE.deserialize(2, v2.getCopyOfBuffer());

        assertThat(back.watermark).isEqualTo(WATERMARK);
        assertThat(back.load.peaks).isEmpty();
        assertThat(back.load.open).isEmpty();
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
}
