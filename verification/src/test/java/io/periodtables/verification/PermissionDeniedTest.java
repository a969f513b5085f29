package io.periodtables.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.KinesisException;
import software.amazon.awssdk.services.kinesis.waiters.KinesisWaiter;

/**
 * A refused call is one line naming the IAM action, also when the Kinesis SDK's waiter (which
 * {@link RunResources} waits for the stream with) wraps the service's refusal in an exception of
 * its own.
 */
class PermissionDeniedTest {

    @Test
    void aDescribeStreamRefusedInsideTheSdksWaiterIsOneLineNamingTheAction() {
        // the answer Kinesis gives a caller without kinesis:DescribeStream, before anything is sent
        ExecutionInterceptor refused = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                String message = "User: arn:aws:iam::123456789012:user/verifier is not authorized to perform:"
                        + " kinesis:DescribeStream on resource: arn:aws:kinesis:eu-west-1:123456789012:stream/verify-0"
                        + " because no identity-based policy allows the kinesis:DescribeStream action";
                throw KinesisException.builder()
                        .statusCode(400)
                        .message(message)
                        .awsErrorDetails(AwsErrorDetails.builder()
                                .errorCode("AccessDeniedException")
                                .errorMessage(message)
                                .serviceName("Kinesis")
                                .build())
                        .build();
            }
        };
        try (KinesisClient kinesis = KinesisClient.builder()
                        .region(Region.EU_WEST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("id", "key")))
                        .overrideConfiguration(o -> o.addExecutionInterceptor(refused))
                        .build();
                KinesisWaiter waiter = KinesisWaiter.builder().client(kinesis).build()) {
            assertThatThrownBy(() -> PermissionDenied.call(
                            "kinesis:DescribeStream",
                            () -> waiter.waitUntilStreamExists(b -> b.streamName("verify-0"))))
                    .isInstanceOfSatisfying(
                            PermissionDenied.class,
                            denied -> assertThat(denied.line())
                                    .isEqualTo(
                                            "FAIL permissions: expected the caller to be allowed kinesis:DescribeStream,"
                                                    + " found AccessDenied for it (docs/operations.md#verify lists the policy verify"
                                                    + " needs)"));
        }
    }
}
