package io.periodtables.rotation;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Records every DynamoDB call made through clients carrying it, as {@code Operation:table}
 * (static, so it sees the clients the operator builds inside the MiniCluster).
 */
public final class CallLog implements ExecutionInterceptor {
    private static final Queue<String> CALLS = new ConcurrentLinkedQueue<>();

    public static void reset() {
        CALLS.clear();
    }

    /** Calls of {@code operation}, as the names of the tables they were for. */
    public static List<String> tablesOf(String operation) {
        return CALLS.stream()
                .filter(c -> c.startsWith(operation + ":"))
                .map(c -> c.substring(operation.length() + 1))
                .toList();
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        String table =
                context.request().getValueForField("TableName", String.class).orElse("");
        CALLS.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME) + ":" + table);
    }
}
