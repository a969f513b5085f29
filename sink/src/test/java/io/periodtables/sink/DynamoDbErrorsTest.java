package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.sink.DynamoDbErrors.Kind;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/** The sink's policy over the shared classification: what it retries, splits, creates or stops on. */
class DynamoDbErrorsTest {

    @ParameterizedTest
    @CsvSource({
        "ProvisionedThroughputExceededException, 400, THROTTLED",
        "InternalServerError, 500, TRANSIENT",
        "LimitExceededException, 400, TRANSIENT",
        "ExpiredTokenException, 400, TRANSIENT",
        "ValidationException, 400, VALIDATION",
        "ResourceNotFoundException, 400, TABLE_MISSING",
        "AccessDeniedException, 400, ACCESS_DENIED",
    })
    void unknownAndQuotaAnswersAreRetriedWithinTheAttemptBound(String code, int status, Kind expected) {
        DynamoDbException error = (DynamoDbException) DynamoDbException.builder()
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage("message of " + code)
                        .build())
                .statusCode(status)
                .message("message of " + code)
                .build();
        assertThat(DynamoDbErrors.classify(new CompletionException(error))).isEqualTo(expected);
    }
}
