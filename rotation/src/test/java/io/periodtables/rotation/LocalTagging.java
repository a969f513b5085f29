package io.periodtables.rotation;

import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableResponse;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceRequest;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.TagResourceRequest;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Table tags for tests on dynalite, which accepts tags on CreateTable but ignores them and
 * refuses TagResource/ListTagsOfResource ("Tagging is not currently supported"). This SDK
 * interceptor remembers the tags of every CreateTable and TagResource that went through a
 * client carrying it (static, so it works for clients the code under test builds), and answers
 * ListTagsOfResource from them: the tagging call is sent to dynalite as a harmless
 * DescribeLimits and its (empty) response gets the remembered tags.
 */
public final class LocalTagging implements ExecutionInterceptor {
    private static final String DESCRIBE_LIMITS = "DynamoDB_20120810.DescribeLimits";
    private static final byte[] EMPTY_JSON = "{}".getBytes(StandardCharsets.UTF_8);
    private static final Map<String, Map<String, String>> TAGS = new ConcurrentHashMap<>();

    public static void reset() {
        TAGS.clear();
    }

    /** The tags remembered for a table. */
    public static Map<String, String> tagsOf(String table) {
        return Map.copyOf(TAGS.getOrDefault(table, Map.of()));
    }

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        if (!isTagging(context.request())) {
            return context.httpRequest();
        }
        return context.httpRequest().toBuilder()
                .putHeader("X-Amz-Target", DESCRIBE_LIMITS)
                .putHeader("Content-Length", String.valueOf(EMPTY_JSON.length))
                .build();
    }

    @Override
    public Optional<RequestBody> modifyHttpContent(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        return isTagging(context.request()) ? Optional.of(RequestBody.fromBytes(EMPTY_JSON)) : context.requestBody();
    }

    @Override
    public Optional<AsyncRequestBody> modifyAsyncHttpContent(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        return isTagging(context.request()) ? Optional.of(AsyncRequestBody.fromBytes(EMPTY_JSON)) : context.asyncRequestBody();
    }

    @Override
    public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        SdkResponse response = context.response();
        if (request instanceof CreateTableRequest && response instanceof CreateTableResponse) {
            CreateTableRequest create = (CreateTableRequest) request;
            TAGS.put(create.tableName(), toMap(create.tags()));
        } else if (request instanceof DeleteTableRequest && response instanceof DeleteTableResponse) {
            TAGS.remove(((DeleteTableRequest) request).tableName());
        } else if (request instanceof TagResourceRequest) {
            TagResourceRequest tag = (TagResourceRequest) request;
            TAGS.computeIfAbsent(tableOf(tag.resourceArn()), t -> new ConcurrentHashMap<>()).putAll(toMap(tag.tags()));
        } else if (request instanceof ListTagsOfResourceRequest) {
            String table = tableOf(((ListTagsOfResourceRequest) request).resourceArn());
            List<Tag> tags = TAGS.getOrDefault(table, Map.of()).entrySet().stream()
                    .map(e -> Tag.builder().key(e.getKey()).value(e.getValue()).build())
                    .collect(Collectors.toList());
            return ((ListTagsOfResourceResponse) response).toBuilder().tags(tags).nextToken(null).build();
        }
        return response;
    }

    private static boolean isTagging(SdkRequest request) {
        return request instanceof TagResourceRequest || request instanceof ListTagsOfResourceRequest;
    }

    private static String tableOf(String arn) {
        return arn.substring(arn.lastIndexOf('/') + 1);
    }

    private static Map<String, String> toMap(List<Tag> tags) {
        Map<String, String> map = new ConcurrentHashMap<>();
        tags.forEach(t -> map.put(t.key(), t.value()));
        return map;
    }
}
