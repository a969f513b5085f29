package io.periodtables.sink.latest;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.dynamodb.DynamoDbFailure.Kind;
import io.periodtables.core.dynamodb.LatestTable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the latest table for a {@link LatestWriter} (prewarmed with {@code latest.warm-writes}),
 * or raises an existing one's warm throughput; the writer's puts wait while it runs. A quota
 * refusal (above all a warm throughput above the per-table quota) is fatal, with what DynamoDB
 * said and the key; other failures are retried with the next put that finds the table missing.
 */
final class LatestTableSetUp {
    private static final Logger LOG = LoggerFactory.getLogger(LatestTableSetUp.class);

    private final LatestTable table;
    private final MailboxExecutor mailbox;
    /** What a quota refusal of the table's creation names: {@code latest.warm-writes}, when set. */
    private final String quotaHint;

    /** The table's creation, while one runs. */
    private CompletableFuture<Void> creating;

    LatestTableSetUp(LatestTable table, long warmWrites, MailboxExecutor mailbox) {
        this.table = table;
        this.mailbox = mailbox;
        this.quotaHint = warmWrites == 0
                ? ""
                : " or raise it to " + ConfigKeys.LATEST_WARM_WRITES.name() + " = " + warmWrites
                        + " write units a second (DynamoDB's per-table quota is 40,000 by default: lower the key"
                        + " or have the quota raised)";
    }

    /** True while the table is being created (or raised): puts wait. */
    boolean running() {
        return creating != null;
    }

    /**
     * Creates the table unless it exists; {@code done} runs in the mailbox when that ends, with
     * the failure that must stop the job, or null.
     */
    void start(Consumer<IOException> done) {
        creating = table.ensure();
        creating.whenComplete((ok, createError) -> {
            if (createError != null) {
                LOG.warn("Could not ensure the latest table {}: {}", table.name(), createError.toString());
            }
            mailbox.execute(
                    () -> {
                        creating = null;
                        Throwable said = createError == null ? null : DynamoDbFailure.unwrap(createError);
                        if (said != null && DynamoDbFailure.classify(said) == Kind.QUOTA) {
                            String what = "the latest table " + table.name() + quotaHint;
                            done.accept(new IOException("DynamoDB refused to create " + what + ": " + said, said));
                        } else {
                            done.accept(null);
                        }
                    },
                    "latest table created");
        });
    }
}
