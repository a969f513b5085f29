package io.periodtables.sink.latest;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.dynamodb.DynamoDbFailure.Kind;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.dynamodb.ThroughputQuotaRefused;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.retry.backoff.FixedDelayBackoffStrategy;
import software.amazon.awssdk.core.waiters.AsyncWaiter;
import software.amazon.awssdk.core.waiters.WaiterAcceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TableWarmThroughputDescription;

/**
 * Creates the latest table for a {@link LatestWriter} (prewarmed with {@code latest.warm-writes}),
 * or raises an existing one's warm throughput. The writer's puts wait while it runs, until the
 * table is {@code ACTIVE}; they do not wait for the warm throughput, which DynamoDB applies
 * asynchronously ({@code UPDATING}, then {@code ACTIVE}) to a table that takes writes meanwhile: a
 * put it throttles backs off in the writer, and the warm-up is only logged when it ends. (Waiting
 * held the writer's task, and with it the windows and the period sink chained to it, for as long
 * as DynamoDB took: minutes.)
 *
 * <p>A refusal of the warm throughput as above the per-table quota ({@link ThroughputQuotaRefused},
 * by {@code LimitExceededException} or {@code ValidationException}) is fatal at once, naming
 * {@code latest.warm-writes} and {@code limits.max-table-units}. Another {@code
 * LimitExceededException} is retried {@value #QUOTA_ATTEMPTS} times with backoff (DynamoDB's limit
 * on concurrent table operations passes as they finish), then fatal with what DynamoDB said. Other
 * failures end the set-up with a warning (the puts go on; a missing table is created again by the
 * next put that finds it missing).
 */
final class LatestTableSetUp {
    private static final Logger LOG = LoggerFactory.getLogger(LatestTableSetUp.class);
    static final int QUOTA_ATTEMPTS = 4;
    private static final Backoff QUOTA_BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10));
    /** Polling of the warm throughput's status, for the log; past the bound it stops, with a warning. */
    private static final Duration WARM_POLL = Duration.ofSeconds(1);

    private static final Duration WARM_WAIT = Duration.ofMinutes(15);

    private final DynamoDbAsyncClient client;
    private final LatestTable table;
    private final long warmWrites;
    private final PeriodTablesConfig config;
    private final MailboxExecutor mailbox;
    /** What a quota refusal of the table's creation names: {@code latest.warm-writes}, when set. */
    private final String quotaHint;

    private boolean running;

    LatestTableSetUp(
            DynamoDbAsyncClient client, LatestTable table, PeriodTablesConfig config, MailboxExecutor mailbox) {
        this.client = client;
        this.table = table;
        this.config = config;
        this.warmWrites = config.find(ConfigKeys.LATEST_WARM_WRITES).orElse(0);
        this.mailbox = mailbox;
        this.quotaHint = warmWrites == 0
                ? ""
                : " or raise it to " + ConfigKeys.LATEST_WARM_WRITES.name() + " = " + warmWrites
                        + " write units a second";
    }

    /** True while the table is being created or raised: puts wait. */
    boolean running() {
        return running;
    }

    /**
     * Creates the table unless it exists, or raises its warm throughput; {@code done} runs in the
     * mailbox when that ends, with the failure that must stop the job, or null.
     */
    void start(Consumer<IOException> done) {
        running = true;
        attempt(1, done);
    }

    private void attempt(int attempt, Consumer<IOException> done) {
        table.ensure().whenComplete((ok, error) -> {
            Throwable said = error == null ? null : DynamoDbFailure.unwrap(error);
            Optional<ThroughputQuotaRefused> refused = said == null
                    ? Optional.empty()
                    : ThroughputQuotaRefused.of(
                            said, table.name(), config, setting -> ConfigKeys.LATEST_WARM_WRITES.name());
            if (refused.isPresent()) {
                mailbox.execute(
                        () -> {
                            running = false;
                            done.accept(new IOException(refused.get().getMessage(), refused.get()));
                        },
                        "latest table set up");
                return;
            }
            boolean quota = said != null && DynamoDbFailure.classify(said) == Kind.QUOTA;
            if (quota && attempt < QUOTA_ATTEMPTS) {
                long delay = QUOTA_BACKOFF.delayMillis(attempt);
                LOG.warn("DynamoDB refused the latest table {} for now, again in {} ms: {}", table.name(), delay, said);
                CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS)
                        .execute(() -> attempt(attempt + 1, done));
                return;
            }
            if (said != null) {
                LOG.warn("Could not ensure the latest table {}: {}", table.name(), said.toString());
            } else if (warmWrites > 0) {
                // A warming table takes writes: the puts go on, throttled ones back off, and this only says when it is
                // warm.
                warmed().whenComplete((warm, notYet) -> {
                    if (notYet == null) {
                        LOG.info("The latest table {} is warm: {} write units a second", table.name(), warmWrites);
                    } else {
                        LOG.warn(
                                "The latest table {} was not reported warm to {} write units a second within {}: {}",
                                table.name(),
                                warmWrites,
                                WARM_WAIT,
                                DynamoDbFailure.unwrap(notYet).toString());
                    }
                });
            }
            mailbox.execute(
                    () -> {
                        running = false;
                        done.accept(
                                quota
                                        ? new IOException(
                                                "DynamoDB refused to create the latest table " + table.name()
                                                        + quotaHint + " (" + attempt + " attempts): " + said,
                                                said)
                                        : null);
                    },
                    "latest table set up");
        });
    }

    /**
     * Done when DynamoDB reports the table's warm throughput ACTIVE (polled with the SDK's waiter);
     * failed after {@link #WARM_WAIT}.
     */
    private CompletableFuture<Void> warmed() {
        ScheduledExecutorService polls = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "latest-table-warm-poll");
            t.setDaemon(true);
            return t;
        });
        AsyncWaiter<DescribeTableResponse> waiter = AsyncWaiter.builder(DescribeTableResponse.class)
                .addAcceptor(WaiterAcceptor.successOnResponseAcceptor(LatestTableSetUp::warmActive))
                .addAcceptor(WaiterAcceptor.retryOnResponseAcceptor(response -> true))
                .addAcceptor(WaiterAcceptor.retryOnExceptionAcceptor(DynamoDbFailure::isRetryable))
                .scheduledExecutorService(polls)
                .build();
        return waiter.runAsync(
                        () -> client.describeTable(b -> b.tableName(table.name())),
                        o -> o.maxAttempts(Integer.MAX_VALUE)
                                .waitTimeout(WARM_WAIT)
                                .backoffStrategy(FixedDelayBackoffStrategy.create(WARM_POLL)))
                .<Void>thenApply(response -> null)
                .whenComplete((ok, error) -> polls.shutdown());
    }

    private static boolean warmActive(DescribeTableResponse response) {
        TableWarmThroughputDescription warm = response.table().warmThroughput();
        return response.table().tableStatus() == TableStatus.ACTIVE
                && (warm == null || warm.status() == null || warm.status() == TableStatus.ACTIVE);
    }
}
