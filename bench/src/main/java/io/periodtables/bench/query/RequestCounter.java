package io.periodtables.bench.query;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts the HTTP requests a client sends, by DynamoDB operation ({@code Query},
 * {@code ListTables}, {@code DescribeTable} …), across every client built with it: the
 * query benchmark's view of what one query costs, beyond the {@code Query} requests its report
 * counts. Instantiated by {@code DynamoDbClients.withInterceptors}; the counts are static.
 */
public final class RequestCounter implements ExecutionInterceptor {

    private static final Map<String, LongAdder> SENT = new ConcurrentHashMap<>();

    public RequestCounter() {}

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        SENT.computeIfAbsent(operation == null ? "?" : operation, k -> new LongAdder())
                .increment();
    }

    /** Requests sent so far, by operation, and clears the counts. */
    static Map<String, Long> drain() {
        Map<String, Long> counts = new TreeMap<>();
        SENT.forEach((operation, count) -> counts.put(operation, count.sumThenReset()));
        counts.values().removeIf(c -> c == 0);
        return counts;
    }
}
