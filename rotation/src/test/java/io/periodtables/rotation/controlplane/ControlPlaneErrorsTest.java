package io.periodtables.rotation.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

class ControlPlaneErrorsTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // DynamoDB's concurrent table operations limit heals: retried with backoff
                "LimitExceededException | Subscriber limit exceeded: Only 10 tables can be created, updated, or deleted"
                        + " simultaneously | true",
                "LimitExceededException | Subscriber limit exceeded: the account has 2500 tables, its quota is 2500 | true",
                // a throughput above the per-table quota, whichever way it is refused: no retry changes it
                "LimitExceededException | Subscriber limit exceeded: WarmThroughput.WriteUnitsPerSecond 50000 is above"
                        + " the per-table throughput quota of 40000 units | false",
                "LimitExceededException | Subscriber limit exceeded: ProvisionedThroughput.WriteCapacityUnits 50000 is"
                        + " above the per-table throughput quota of 40000 units | false",
                "ValidationException | One or more parameter values were invalid: OnDemandThroughput.MaxWriteRequestUnits"
                        + " 50000 is above the per-table throughput quota | false",
            })
    void aLimitExceededIsRetriedUnlessItRefusesAThroughputSetting(String code, String message, boolean transient_) {
        DynamoDbException error = (DynamoDbException) DynamoDbException.builder()
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(message)
                        .build())
                .statusCode(400)
                .message(message)
                .build();
        assertThat(ControlPlaneErrors.isTransient(error)).isEqualTo(transient_);
    }
}
