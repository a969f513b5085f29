package io.periodtables.job.kinesis;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.model.KmsThrottlingException;
import software.amazon.awssdk.services.kinesis.model.LimitExceededException;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;

/** The one classifier of failed Kinesis reads: a refusal to wait out, a transient failure, or fatal. */
final class KinesisFailures {
    private KinesisFailures() {}

    /**
     * Kinesis refused the call for a read limit: "5 transactions per second" or "2 MB per second"
     * per shard for GetRecords, 5 GetShardIterator per second per shard, or KMS's own rate.
     */
    static boolean isThrottling(SdkException failure) {
        return failure instanceof ProvisionedThroughputExceededException
                || failure instanceof LimitExceededException
                || failure instanceof KmsThrottlingException
                || (failure instanceof AwsServiceException aws && aws.isThrottlingException());
    }

    /** A failure that says nothing of the request: Kinesis's side (5xx) or the connection. */
    static boolean isTransient(SdkException failure) {
        return failure instanceof SdkClientException
                || (failure instanceof AwsServiceException aws && aws.statusCode() >= 500);
    }
}
