package io.periodtables.emulators;

/**
 * What {@link DynamoDbFaults} did to a request. Error kinds carry the HTTP status, the error type
 * DynamoDB puts in {@code __type} and its message, so the SDK unmarshals them into the same
 * exception a real service error would produce.
 */
public enum FaultKind {
    /** 400 {@code ProvisionedThroughputExceededException}; the request is not executed. */
    PROVISIONED_THROUGHPUT_EXCEEDED(
            400,
            "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
            "The level of configured provisioned throughput for the table was exceeded. "
                    + "Consider increasing your provisioning level with the UpdateTable API."),
    /** 400 {@code ThrottlingException} (control-plane or account-level rate limit); not executed. */
    THROTTLING(
            400,
            "com.amazon.coral.availability#ThrottlingException",
            "Rate of requests exceeds the allowed throughput."),
    /** A part of a BatchWriteItem is really not written and comes back in {@code UnprocessedItems}. */
    UNPROCESSED_ITEMS(200, null, null),
    /** HTTP 500 {@code InternalServerError}; not executed. */
    INTERNAL_SERVER_ERROR(500, "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error"),
    /** HTTP 503 {@code ServiceUnavailable}; not executed. */
    SERVICE_UNAVAILABLE(503, "com.amazon.coral.availability#ServiceUnavailableException", "Service unavailable"),
    /** The request is held for a while, then executed for real (a timed-out write may still land). */
    DELAY(0, null, null),
    /** The connection is reset (TCP RST) after the request was received; not executed. */
    CONNECTION_RESET(0, null, null),
    /** 400 {@code LimitExceededException}, as for too many concurrent table operations; not executed. */
    LIMIT_EXCEEDED(
            400,
            "com.amazonaws.dynamodb.v20120810#LimitExceededException",
            "Subscriber limit exceeded: Only 10 tables can be created, updated, or deleted simultaneously"),
    /** 400 {@code ResourceInUseException} (table exists, or is being created/updated); not executed. */
    RESOURCE_IN_USE(
            400,
            "com.amazonaws.dynamodb.v20120810#ResourceInUseException",
            "Attempt to change a resource which is still in use"),
    /** 400 ValidationException "TimeToLive is already enabled" on UpdateTimeToLive; not executed. */
    TTL_ALREADY_ENABLED(400, "com.amazon.coral.validate#ValidationException", "TimeToLive is already enabled"),
    /** 400 {@code ResourceNotFoundException}: a data-plane call to a table held in CREATING; not executed. */
    RESOURCE_NOT_FOUND(
            400, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", "Requested resource not found"),
    /** A DescribeTable/CreateTable response whose TableStatus was rewritten to CREATING. */
    TABLE_CREATING(200, null, null);

    private final int status;
    private final String errorType;
    private final String message;

    FaultKind(int status, String errorType, String message) {
        this.status = status;
        this.errorType = errorType;
        this.message = message;
    }

    /** True for the kinds answered with a canned DynamoDB error response. */
    public boolean isErrorResponse() {
        return errorType != null;
    }

    int status() {
        return status;
    }

    String errorType() {
        return errorType;
    }

    String message() {
        return message;
    }
}
