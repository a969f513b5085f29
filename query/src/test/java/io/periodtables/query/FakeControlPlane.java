package io.periodtables.query;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.Tag;

/**
 * DescribeTable and ListTagsOfResource of a few tables held in memory, for answers an emulator
 * does not give on demand: tags that cannot be read, and a number of throttled answers before
 * the real one (besides tables with tags and without).
 */
final class FakeControlPlane implements DynamoDbAsyncClient {

    private final Map<String, List<Tag>> tables = new HashMap<>();
    private final Map<String, String> tagErrors = new HashMap<>();
    final AtomicInteger describes = new AtomicInteger();
    final AtomicInteger throttleNext = new AtomicInteger();

    FakeControlPlane table(String name, Map<String, String> tags) {
        tables.put(
                name,
                tags.entrySet().stream()
                        .map(e -> Tag.builder()
                                .key(e.getKey())
                                .value(e.getValue())
                                .build())
                        .toList());
        return this;
    }

    FakeControlPlane tagsFail(String name, String message) {
        tables.put(name, List.of());
        tagErrors.put(name, message);
        return this;
    }

    @Override
    public CompletableFuture<DescribeTableResponse> describeTable(DescribeTableRequest request) {
        describes.incrementAndGet();
        if (throttleNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return CompletableFuture.failedFuture(error("ThrottlingException", 400));
        }
        if (!tables.containsKey(request.tableName())) {
            return CompletableFuture.failedFuture(
                    ResourceNotFoundException.builder().message("no table").build());
        }
        return CompletableFuture.completedFuture(DescribeTableResponse.builder()
                .table(t -> t.tableName(request.tableName())
                        .tableArn("arn:aws:dynamodb:us-east-1:1:table/" + request.tableName()))
                .build());
    }

    @Override
    public CompletableFuture<ListTagsOfResourceResponse> listTagsOfResource(ListTagsOfResourceRequest request) {
        String table = request.resourceArn().substring(request.resourceArn().indexOf('/') + 1);
        if (tagErrors.containsKey(table)) {
            return CompletableFuture.failedFuture(error("UnknownOperationException", 400, tagErrors.get(table)));
        }
        return CompletableFuture.completedFuture(
                ListTagsOfResourceResponse.builder().tags(tables.get(table)).build());
    }

    private static DynamoDbException error(String code, int status) {
        return error(code, status, code);
    }

    private static DynamoDbException error(String code, int status, String message) {
        return (DynamoDbException) DynamoDbException.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(message)
                        .build())
                .build();
    }

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
