package io.periodtables.model;

import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.util.Preconditions;

/**
 * One device reading as the job's parser produced it: who measured it, when, its optional
 * {@code eventId}, and its payload as canonical JSON (an object with keys sorted, nulls removed,
 * no whitespace; it never holds the device, timestamp or eventId fields).
 *
 * <p>Readings live in window state, so their Flink serializer is explicit and versioned
 * ({@link ReadingSerializer}): savepoints survive redeploys.
 */
@PublicEvolving
@TypeInfo(ReadingSerializer.TypeFactory.class)
public record Reading(
        String deviceId, long eventMillis, @Nullable String eventId, String payloadJson) {

    public Reading {
        Preconditions.checkNotNull(deviceId, "deviceId");
        Preconditions.checkNotNull(payloadJson, "payloadJson");
    }

    /**
     * The reading's identity when it has no {@code eventId}: device, event millis and payload,
     * each delimited so that no two different readings share it (the device id is
     * length-prefixed; the payload comes last). It feeds the item's sort-key hash, so changing
     * this form changes the keys of every reading without an {@code eventId}.
     */
    public String canonical() {
        return deviceId.length() + ":" + deviceId + ':' + eventMillis + ':' + payloadJson;
    }
}
