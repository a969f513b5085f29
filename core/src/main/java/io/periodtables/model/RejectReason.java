package io.periodtables.model;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Why input was not stored as a reading. The {@link #code()} starts the rejected item's
 * {@code pk} ({@link Rejection#partitionKey()}) and is stored in savepoints: never change one,
 * only add new reasons.
 */
@PublicEvolving
public enum RejectReason {
    /** Not UTF-8, not JSON, or empty. */
    INVALID_JSON("invalid-json"),
    /** A JSON value (or array element) that is not an object. */
    NOT_AN_OBJECT("not-an-object"),
    /** An empty JSON array. */
    EMPTY_ARRAY("empty-array"),
    /** No device id, or not a non-empty string. */
    MISSING_DEVICE("missing-device"),
    /** A device id longer than DynamoDB's key allows with the shard suffix. */
    DEVICE_TOO_LONG("device-too-long"),
    /** An {@code eventId} that is not a non-empty string. */
    BAD_EVENT_ID("bad-event-id"),
    /** A missing or unreadable timestamp, or one no table can be named for. */
    BAD_TIMESTAMP("bad-timestamp"),
    /** A timestamp more than {@code input.max-future} ahead of the wall clock. */
    TOO_FAR_FUTURE("too-far-future"),
    /** A number DynamoDB cannot store (more than 38 digits, out of range). */
    BAD_NUMBER("bad-number"),
    /** Nested deeper than DynamoDB's 32 levels. */
    TOO_DEEP("too-deep"),
    /** A payload field named like a key attribute ({@code pk}, {@code sk}, {@code ttl}). */
    RESERVED_ATTRIBUTE("reserved-attribute"),
    /** A nested field name DynamoDB refuses (empty). */
    BAD_FIELD_NAME("bad-field-name"),
    /** An item over DynamoDB's 400 KB limit. */
    ITEM_TOO_LARGE("item-too-large"),
    /** An item DynamoDB refused with a validation error. */
    DYNAMODB_VALIDATION("dynamodb-validation"),
    /** A reading of a period the table owner does not open yet (ahead of the event-time watermark). */
    AHEAD_OF_WATERMARK("ahead-of-watermark"),
    /** A rollup of a period that has no table (closed, and its tables deleted by retention). */
    PERIOD_CLOSED("period-closed");

    private static final Map<String, RejectReason> BY_CODE =
            Arrays.stream(values()).collect(Collectors.toMap(RejectReason::code, Function.identity()));

    private final String code;

    RejectReason(String code) {
        this.code = code;
    }

    /** The stored code, e.g. {@code invalid-json}. */
    public String code() {
        return code;
    }

    /** The reason whose stored code is {@code code}; throws {@link IllegalArgumentException} for an unknown one. */
    public static RejectReason ofCode(String code) {
        RejectReason reason = BY_CODE.get(code);
        if (reason == null) {
            throw new IllegalArgumentException("unknown rejection reason code '" + code + "'");
        }
        return reason;
    }

    @Override
    public String toString() {
        return code;
    }
}
