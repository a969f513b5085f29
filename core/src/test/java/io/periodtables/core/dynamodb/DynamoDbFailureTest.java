package io.periodtables.core.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.dynamodb.DynamoDbFailure.Kind;
import io.periodtables.core.dynamodb.DynamoDbFailure.ThroughputSetting;
import java.io.IOException;
import java.net.ConnectException;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

class DynamoDbFailureTest {

    @ParameterizedTest
    @CsvSource({
        "ProvisionedThroughputExceededException, 400, THROTTLED",
        "ThrottlingException, 400, THROTTLED",
        "RequestLimitExceeded, 400, THROTTLED",
        "SomethingNew, 429, THROTTLED",
        "InternalServerError, 500, TRANSIENT",
        "ServiceUnavailable, 503, TRANSIENT",
        "ValidationException, 400, VALIDATION",
        "ResourceNotFoundException, 400, TABLE_MISSING",
        "ResourceInUseException, 400, TABLE_BUSY",
        "LimitExceededException, 400, QUOTA",
        "AccessDeniedException, 400, ACCESS_DENIED",
        "UnrecognizedClientException, 400, ACCESS_DENIED",
        "InvalidSignatureException, 400, ACCESS_DENIED",
        "MissingAuthenticationToken, 403, ACCESS_DENIED",
        "ExpiredTokenException, 400, REFUSED",
        "ItemCollectionSizeLimitExceededException, 400, REFUSED",
    })
    void serviceErrorsAreClassifiedByTheirCode(String code, int status, Kind expected) {
        assertThat(DynamoDbFailure.classify(new CompletionException(service(code, status))))
                .isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "LimitExceededException | Subscriber limit exceeded: WarmThroughput.WriteUnitsPerSecond 50000 is above"
                        + " the per-table throughput quota | WARM_THROUGHPUT",
                "ValidationException | One or more parameter values were invalid: WarmThroughput 50000 | WARM_THROUGHPUT",
                "ValidationException | MaxWriteRequestUnits 50000 is above the quota | ON_DEMAND_THROUGHPUT",
                "LimitExceededException | Subscriber limit exceeded: ReadCapacityUnits 50000 | PROVISIONED_THROUGHPUT",
                // not throughput-quota refusals: DynamoDB's other limits, a same-value update, another code
                "LimitExceededException | Subscriber limit exceeded: Only 10 tables can be created, updated, or deleted"
                        + " simultaneously | ",
                "LimitExceededException | Subscriber limit exceeded: Provisioned throughput decreases are limited within"
                        + " a given UTC day | ",
                "ValidationException | The provisioned throughput for the table will not change | ",
                "ThrottlingException | WarmThroughput is being updated | ",
            })
    void aThroughputQuotaRefusalIsALimitOrValidationErrorNamingTheSetting(
            String code, String message, ThroughputSetting expected) {
        DynamoDbException error = (DynamoDbException) DynamoDbException.builder()
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(message)
                        .build())
                .statusCode(400)
                .message(message)
                .build();
        assertThat(DynamoDbFailure.throughputQuotaRefusal(new CompletionException(error)))
                .isEqualTo(Optional.ofNullable(expected));
    }

    @Test
    void clientSideErrorsAreTransientAndOurOwnAreNoDynamoDbFailure() {
        assertThat(DynamoDbFailure.classify(
                        new CompletionException(SdkClientException.create("connect", new ConnectException("refused")))))
                .isEqualTo(Kind.TRANSIENT);
        assertThat(DynamoDbFailure.classify(ApiCallAttemptTimeoutException.create(100)))
                .isEqualTo(Kind.TRANSIENT);
        assertThat(DynamoDbFailure.classify(new IOException("reset"))).isEqualTo(Kind.TRANSIENT);
        assertThat(DynamoDbFailure.classify(new CompletionException(new IllegalStateException("ours"))))
                .isEqualTo(Kind.NOT_DYNAMODB);
        assertThat(DynamoDbFailure.isRetryable(service("ThrottlingException", 400)))
                .isTrue();
        assertThat(DynamoDbFailure.isRetryable(service("ValidationException", 400)))
                .isFalse();
    }

    @Test
    void anSdkWrapperAroundAServiceErrorIsSeenThrough() {
        SdkClientException wrapper = SdkClientException.create("wrapped", service("ResourceNotFoundException", 400));
        assertThat(DynamoDbFailure.classify(new CompletionException(wrapper))).isEqualTo(Kind.TABLE_MISSING);
    }

    @Test
    void descriptionNamesCodeStatusAndMessage() {
        assertThat(DynamoDbFailure.describe(new CompletionException(service("ValidationException", 400))))
                .isEqualTo("ValidationException (HTTP 400): message of ValidationException");
        assertThat(DynamoDbFailure.describe(new CompletionException(
                        SdkClientException.create("Unable to execute HTTP request", new ConnectException("refused")))))
                .startsWith("SdkClientException caused by ConnectException: Unable to execute HTTP request");
    }

    @Test
    void keySchemaMismatchIsNotAPoisonItem() {
        for (String message : new String[] {
            "One of the required keys was not given a value",
            "The provided key element does not match the schema",
            "Missing the key id in the item"
        }) {
            DynamoDbException error = (DynamoDbException) DynamoDbException.builder()
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("ValidationException")
                            .errorMessage(message)
                            .build())
                    .statusCode(400)
                    .message(message)
                    .build();
            assertThat(DynamoDbFailure.classify(new CompletionException(error)))
                    .as(message)
                    .isEqualTo(Kind.WRONG_KEY_SCHEMA);
        }
    }

    static DynamoDbException service(String code, int status) {
        return (DynamoDbException) DynamoDbException.builder()
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage("message of " + code)
                        .build())
                .statusCode(status)
                .message("message of " + code)
                .build();
    }
}
