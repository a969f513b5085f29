package io.periodtables.rotation;

import io.periodtables.conf.Capacity;
import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.PeriodTablesConfig;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableRequest;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Moves a table to a capacity tier: DescribeTable, skip when it is there already (DynamoDB
 * refuses a same-value update), else UpdateTable (capacity, or billing mode for an on-demand
 * tier) and wait for ACTIVE. A table still UPDATING, and DynamoDB's decrease quota
 * ({@code LimitExceededException}), put the attempt off instead of failing it.
 *
 * <p>One job per table: a second {@code setTier} while one is running only moves its target
 * (so a backlog that passes "previous" and "older" at once spends one decrease, not two).
 */
final class TierChanger {
    private static final Logger LOG = LoggerFactory.getLogger(TierChanger.class);

    private final PeriodTablesConfig config;
    private final DynamoDbAsyncClient client;
    private final TableWaits waits;
    private final RetryLoop retry;
    private final TableManagerSettings settings;
    private final TableManagerStats stats;
    private final Clock clock;
    private final Map<String, Job> jobs = new HashMap<>();

    TierChanger(PeriodTablesConfig config, DynamoDbAsyncClient client, TableWaits waits, RetryLoop retry,
            TableManagerSettings settings, TableManagerStats stats, Clock clock) {
        this.config = config;
        this.client = client;
        this.waits = waits;
        this.retry = retry;
        this.settings = settings;
        this.stats = stats;
        this.clock = clock;
    }

    /** One table's pending change; {@code target} may move while it runs. */
    private static final class Job {
        final String table;
        final CompletableFuture<TierChange> result = new CompletableFuture<>();
        volatile CapacityTier target;
        volatile boolean changed;

        Job(String table, CapacityTier target) {
            this.table = table;
            this.target = target;
        }
    }

    CompletableFuture<TierChange> setTier(String table, CapacityTier tier) {
        Job job;
        synchronized (jobs) {
            job = jobs.get(table);
            if (job != null) {
                if (job.target != tier) {
                    LOG.info("Table {}: tier target moves from {} to {} while its change is pending", table, job.target, tier);
                }
                job.target = tier;
                return job.result.copy();
            }
            job = new Job(table, tier);
            jobs.put(table, job);
        }
        run(job);
        return job.result.copy();
    }

    private void run(Job job) {
        retry.run("set tier of " + job.table, () -> attempt(job)).whenComplete((change, error) -> {
            synchronized (jobs) {
                if (error == null && job.target != change.tier() && change.outcome() != TierChange.Outcome.TABLE_MISSING) {
                    run(job); // the target moved after this attempt read it
                    return;
                }
                jobs.remove(job.table, job);
            }
            if (error != null) {
                stats.failures.incrementAndGet();
                LOG.warn("Could not set table {} to tier {}: {}", job.table, job.target, ControlPlaneErrors.describe(error));
                job.result.completeExceptionally(error);
            } else if (job.changed && change.outcome() == TierChange.Outcome.UNCHANGED) {
                job.result.complete(new TierChange(change.table(), change.tier(), TierChange.Outcome.CHANGED, change.capacity()));
            } else {
                job.result.complete(change);
            }
        });
    }

    /** One attempt at the job's target as it is now (a put-off attempt picks up a moved target). */
    private CompletableFuture<TierChange> attempt(Job job) {
        String table = job.table;
        CapacityTier tier = job.target;
        Capacity target = config.effectiveCapacity(tier);
        return waits.describe(table).thenCompose(found -> {
            if (found.isEmpty() || found.get().tableStatus() == TableStatus.DELETING) {
                LOG.info("Table {} is gone; no tier {} for it", table, tier);
                return CompletableFuture.completedFuture(new TierChange(table, tier, TierChange.Outcome.TABLE_MISSING, null));
            }
            TableDescription description = found.get();
            if (description.tableStatus() != TableStatus.ACTIVE) {
                throw new RetryLaterException("table " + table + " is " + description.tableStatusAsString(), null, null);
            }
            Capacity current = TableInfo.capacityOf(description);
            if (current.equals(target)) {
                LOG.debug("Table {} is already at tier {} ({})", table, tier, target);
                return CompletableFuture.completedFuture(new TierChange(table, tier, TierChange.Outcome.UNCHANGED, target));
            }
            stats.updateTableCalls.incrementAndGet();
            return client.updateTable(update(table, current, target)).handle((response, error) -> {
                if (error == null) {
                    return true;
                }
                if (ControlPlaneErrors.isSameThroughput(error)) {
                    return false;
                }
                if (ControlPlaneErrors.isLimitExceeded(error)) {
                    var delay = settings.decreaseQuotaDelay().orElseGet(() ->
                            DecreaseQuota.untilNextDecrease(clock.instant(), description.provisionedThroughput()));
                    throw new RetryLaterException("capacity change quota of " + table + " is used up", delay,
                            ControlPlaneErrors.unwrap(error));
                }
                throw new CompletionException(ControlPlaneErrors.unwrap(error));
            }).thenCompose(changed -> {
                if (!changed) {
                    return CompletableFuture.completedFuture(new TierChange(table, tier, TierChange.Outcome.UNCHANGED, target));
                }
                job.changed = true;
                stats.tierChanges.incrementAndGet();
                LOG.info("Table {} set to tier {}: {} -> {}", table, tier, current, target);
                return waits.untilActive(table)
                        .thenApply(ignored -> new TierChange(table, tier, TierChange.Outcome.CHANGED, target));
            });
        });
    }

    private static UpdateTableRequest update(String table, Capacity current, Capacity target) {
        UpdateTableRequest.Builder b = UpdateTableRequest.builder().tableName(table);
        if (target.onDemand()) {
            return b.billingMode(BillingMode.PAY_PER_REQUEST).build();
        }
        if (current.onDemand()) {
            b.billingMode(BillingMode.PROVISIONED);
        }
        return b.provisionedThroughput(p -> p.writeCapacityUnits(target.writeUnits()).readCapacityUnits(target.readUnits()))
                .build();
    }
}
