package io.periodtables.emulators;

import io.periodtables.emulators.FaultScript.Decision;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * Fault injection on top of a DynamoDB (dynalite behind its fidelity layer, or the service): an SDK {@link
 * ExecutionInterceptor} that follows one static, thread-safe script per JVM (FaultScript), so it works when the SDK
 * instantiates it by its no-argument constructor inside a Flink operator. Install it with
 * {@code DynamoDbClients.of(config).withInterceptors(List.of(DynamoDbFaults.class))}.
 *
 * <pre>{@code
 * DynamoDbFaults.reset();                                   // in @BeforeEach
 * DynamoDbFaults.on("BatchWriteItem").every(2).throttle();  // calls 2, 4, 6 ... fail
 * DynamoDbFaults.on("BatchWriteItem").once().unprocessed(0.5);
 * DynamoDbFaults.holdCreating("readings_2024-06-01");       // until release(...)
 * assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED)).isPositive();
 * }</pre>
 *
 * <p>How faults are made, so that both the sync and the async Netty client see them exactly as a
 * real service failure: error responses, connection resets and delays redirect the HTTP request
 * to a loopback {@code FaultServer} that answers with the canned DynamoDB error (status and
 * {@code __type}), resets the TCP connection, or waits and then forwards the request to
 * DynamoDB. Unprocessed items are held back from the request before it is sent and added to the
 * response's UnprocessedItems, so they are really not written. A table held in CREATING gets its
 * TableStatus rewritten in DescribeTable/CreateTable responses, and data-plane calls to it fail
 * with ResourceNotFoundException (table updates with ResourceInUseException).
 *
 * <p>A fault is decided once per API call (SDK retries, which period-tables turns off, would
 * repeat the same fault). Rules are tried in the order they were added; the first one that hits
 * a call injects its fault, and every rule counts every call it matches. The request log
 * ({@link #requests()}) also records which calls DynamoDB itself throttled (the fidelity layer's
 * limits), so a test sees both in one place; a call enters the log when its answer arrives, with
 * that answer ({@link SeenRequest#outcome()}).
 */
public final class DynamoDbFaults implements ExecutionInterceptor {
    private static final ExecutionAttribute<Decision> DECISION = new ExecutionAttribute<>("PeriodTablesFault");
    private static final ExecutionAttribute<SeenRequest> SEEN_REQUEST = new ExecutionAttribute<>("PeriodTablesSeen");

    /** Clears the script, the CREATING holds, the counters and the request log. */
    public static void reset() {
        FaultScript.reset();
    }

    /** Starts a rule for calls of this operation (the SDK's name, e.g. "BatchWriteItem"). */
    public static FaultRule.Builder on(String operation) {
        return new FaultRule.Builder(operation);
    }

    /** Holds {@code table} in CREATING until {@link #release(String)} (see the class comment). */
    public static void holdCreating(String table) {
        FaultScript.holdCreating(table, Instant.MAX);
    }

    /** Holds {@code table} in CREATING for {@code duration} from now. */
    public static void holdCreating(String table, Duration duration) {
        FaultScript.holdCreating(table, Instant.now().plus(duration));
    }

    /** Ends a CREATING hold: the table shows its real status again. */
    public static void release(String table) {
        FaultScript.release(table);
    }

    /** How many calls of this operation went through any client with this interceptor. */
    public static long count(String operation) {
        return FaultScript.count(operation);
    }

    /** How many times this fault was injected into calls of this operation. */
    public static long injected(String operation, FaultKind kind) {
        return FaultScript.injected(operation, kind);
    }

    /** How many times this fault was injected, whatever the operation. */
    public static long injected(FaultKind kind) {
        return FaultScript.injected(kind);
    }

    /** The calls answered since the last {@link #reset()}, in the order of their answers (the last 10,000). */
    public static List<SeenRequest> requests() {
        return FaultScript.requests();
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        SdkRequest request = context.request();
        List<String> tables = tablesOf(request);
        Decision decision = FaultScript.decide(operation, tables, request);
        attributes.putAttribute(
                SEEN_REQUEST,
                new SeenRequest(
                        Instant.now(),
                        operation,
                        tables,
                        Optional.ofNullable(decision).map(Decision::kind),
                        false,
                        "not answered yet"));
        if (decision == null) {
            return request;
        }
        attributes.putAttribute(DECISION, decision);
        return decision.partial() != null ? decision.partial().sent() : request;
    }

    @Override
    public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
        Decision decision = attributes.getAttribute(DECISION);
        SdkHttpRequest request = context.httpRequest();
        boolean wholeRequest = decision != null
                && (decision.kind().isErrorResponse()
                        || decision.kind() == FaultKind.DELAY
                        || decision.kind() == FaultKind.CONNECTION_RESET
                        || (decision.partial() != null && decision.partial().nothingSent()));
        if (!wholeRequest) {
            return request;
        }
        SdkHttpRequest.Builder redirected = request.toBuilder()
                .protocol("http")
                .host("127.0.0.1")
                .port(FaultServer.instance().port())
                .putHeader(FaultServer.KIND, decision.kind().name());
        if (decision.kind() == FaultKind.DELAY) {
            redirected
                    .putHeader(
                            FaultServer.DELAY_MILLIS,
                            String.valueOf(decision.rule().delay().toMillis()))
                    .putHeader(FaultServer.TARGET, request.protocol() + "://" + request.host() + ":" + request.port());
        }
        if (decision.message() != null) {
            redirected.putHeader(FaultServer.MESSAGE, FaultServer.encode(decision.message()));
        }
        return redirected.build();
    }

    @Override
    public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
        Decision decision = attributes.getAttribute(DECISION);
        SdkResponse response = context.response();
        if (decision == null) {
            return response;
        }
        if (decision.partial() != null && response instanceof BatchWriteItemResponse batch) {
            return decision.partial().addHeldBackTo(batch);
        }
        if (decision.kind() == FaultKind.TABLE_CREATING) {
            if (response instanceof DescribeTableResponse describe && describe.table() != null) {
                return describe.toBuilder().table(creating(describe.table())).build();
            }
            if (response instanceof CreateTableResponse create && create.tableDescription() != null) {
                return create.toBuilder()
                        .tableDescription(creating(create.tableDescription()))
                        .build();
            }
        }
        return response;
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        Decision decision = attributes.getAttribute(DECISION);
        boolean heldBack = context.response() instanceof BatchWriteItemResponse batch
                && batch.hasUnprocessedItems()
                && !batch.unprocessedItems().isEmpty()
                && (decision == null || decision.partial() == null);
        log(attributes, heldBack, SeenRequest.OK);
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        Decision decision = attributes.getAttribute(DECISION);
        log(
                attributes,
                decision == null && context.exception() instanceof ProvisionedThroughputExceededException,
                outcome(context.exception()));
    }

    private static void log(ExecutionAttributes attributes, boolean throttled, String outcome) {
        SeenRequest seen = attributes.getAttribute(SEEN_REQUEST);
        if (seen == null) {
            return;
        }
        FaultScript.log(seen.answered(outcome), throttled);
    }

    /** A failed call's outcome: the error code and message it was answered with, or that it got no answer. */
    static String outcome(Throwable failure) {
        Throwable error = failure;
        while (error instanceof CompletionException && error.getCause() != null) {
            error = error.getCause();
        }
        if (error instanceof AwsServiceException service && service.awsErrorDetails() != null) {
            return service.awsErrorDetails().errorCode() + ": "
                    + service.awsErrorDetails().errorMessage();
        }
        return SeenRequest.NO_ANSWER + error;
    }

    private static TableDescription creating(TableDescription table) {
        return table.toBuilder().tableStatus(TableStatus.CREATING).build();
    }

    private static List<String> tablesOf(SdkRequest request) {
        if (request instanceof BatchWriteItemRequest batch) {
            return new ArrayList<>(batch.requestItems().keySet());
        }
        if (request instanceof BatchGetItemRequest batch) {
            return new ArrayList<>(batch.requestItems().keySet());
        }
        return request.getValueForField("TableName", String.class).map(List::of).orElse(List.of());
    }
}
