package io.periodtables.rotation;

import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodCalendar;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.ListTablesResponse;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Deletes tables past {@code tables.retention}: period tables whose period ended, and late
 * tables whose UTC write month ended, longer than the retention before {@code now}. Only
 * tables whose name parses as ours <em>and</em> that carry {@code managed-by=period-tables};
 * never the rejected table, the tables of the period of {@code now} and the next one, nor
 * the late table of this month (by {@code now} and by the wall clock). A table with deletion
 * protection is left alone with a warning. Tables are handled one after the other: deleting
 * is rare and the table-operation limits are shared with the rest of the account.
 */
final class RetentionSweeper {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionSweeper.class);

    private enum Verdict { DELETED, PROTECTED, NOT_OURS }

    private final PeriodTablesConfig config;
    private final TableNaming naming;
    private final DynamoDbAsyncClient client;
    private final TableWaits waits;
    private final RetryLoop retry;
    private final TableManagerStats stats;
    private final Clock clock;
    private CompletableFuture<RetentionReport> running;

    RetentionSweeper(PeriodTablesConfig config, DynamoDbAsyncClient client, TableWaits waits, RetryLoop retry,
            TableManagerStats stats, Clock clock) {
        this.config = config;
        this.naming = config.naming();
        this.client = client;
        this.waits = waits;
        this.retry = retry;
        this.stats = stats;
        this.clock = clock;
    }

    synchronized CompletableFuture<RetentionReport> apply(Instant now) {
        Optional<Duration> retention = config.find(ConfigKeys.TABLES_RETENTION);
        if (retention.isEmpty()) {
            return CompletableFuture.completedFuture(RetentionReport.NOTHING);
        }
        if (running != null && !running.isDone()) {
            return running.copy(); // one pass at a time; the next rollover checks again
        }
        running = retry.run("list tables", () -> listFrom(null, new ArrayList<>()))
                .thenCompose(names -> sweep(expired(names, now, retention.get())));
        return running.copy();
    }

    /** Names of ours whose period or late month ended more than {@code retention} before {@code now}. */
    List<String> expired(List<String> names, Instant now, Duration retention) {
        Set<String> keep = keep(now);
        List<String> expired = new ArrayList<>();
        for (String name : names) {
            if (keep.contains(name)) {
                continue;
            }
            naming.parse(name).ifPresent(ref -> {
                Instant end;
                switch (ref.kind()) {
                    case PERIOD:
                        end = ref.period().end();
                        break;
                    case LATE:
                        end = ref.lateMonth().plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
                        break;
                    default:
                        return; // the rejected table is kept forever
                }
                if (now.isAfter(end.plus(retention))) {
                    expired.add(name);
                }
            });
        }
        return expired;
    }

    private Set<String> keep(Instant now) {
        PeriodCalendar calendar = naming.calendar();
        Set<String> keep = new HashSet<>();
        for (Instant t : List.of(now, clock.instant())) {
            try {
                Period current = calendar.periodOf(t);
                keep.add(naming.periodTable(current));
                keep.add(naming.periodTable(calendar.next(current)));
            } catch (IllegalArgumentException outsideLabelledYears) {
                // no table can be named for it, so none to keep
            }
            keep.add(naming.lateTable(t));
        }
        keep.add(naming.rejectedTable());
        return keep;
    }

    private CompletableFuture<List<String>> listFrom(String start, List<String> names) {
        return client.listTables(b -> b.exclusiveStartTableName(start)).thenCompose((ListTablesResponse page) -> {
            page.tableNames().stream().filter(naming::hasOurPrefix).forEach(names::add);
            return page.lastEvaluatedTableName() == null
                    ? CompletableFuture.completedFuture(names)
                    : listFrom(page.lastEvaluatedTableName(), names);
        });
    }

    private CompletableFuture<RetentionReport> sweep(List<String> expired) {
        Map<String, Verdict> verdicts = new HashMap<>();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (String table : expired) {
            chain = chain.thenCompose(ignored -> retry.run("retention of " + table, () -> judge(table)))
                    .handle((verdict, error) -> {
                        if (error != null) {
                            stats.failures.incrementAndGet();
                            LOG.warn("Retention could not handle table {}: {}", table, ControlPlaneErrors.describe(error));
                        } else {
                            verdicts.put(table, verdict);
                        }
                        return null;
                    });
        }
        return chain.thenApply(ignored -> new RetentionReport(
                of(expired, verdicts, Verdict.DELETED), of(expired, verdicts, Verdict.PROTECTED),
                of(expired, verdicts, Verdict.NOT_OURS)));
    }

    private static List<String> of(List<String> tables, Map<String, Verdict> verdicts, Verdict verdict) {
        return tables.stream().filter(t -> verdicts.get(t) == verdict).toList();
    }

    private CompletableFuture<Verdict> judge(String table) {
        return waits.describe(table).thenCompose(found -> {
            if (found.isEmpty()) {
                return CompletableFuture.completedFuture(Verdict.DELETED);
            }
            TableDescription description = found.get();
            if (Boolean.TRUE.equals(description.deletionProtectionEnabled())) {
                return CompletableFuture.completedFuture(protectedTable(table));
            }
            return managedByUs(description).thenCompose(ours -> ours ? delete(table) : CompletableFuture.completedFuture(Verdict.NOT_OURS));
        });
    }

    private CompletableFuture<Boolean> managedByUs(TableDescription table) {
        return tagsFrom(table.tableArn(), null, new HashMap<>()).handle((tags, error) -> {
            if (error == null) {
                boolean ours = TableNaming.MANAGED_BY_VALUE.equals(tags.get(TableNaming.MANAGED_BY_TAG));
                if (!ours) {
                    LOG.info("Table {} has our prefix and is past retention but lacks tag {}={}; leaving it",
                            table.tableName(), TableNaming.MANAGED_BY_TAG, TableNaming.MANAGED_BY_VALUE);
                }
                return ours;
            }
            if (ControlPlaneErrors.isTaggingUnsupported(error)) {
                LOG.warn("Cannot read the tags of {} (this DynamoDB does not support tagging); not deleting it",
                        table.tableName());
                return false;
            }
            throw new CompletionException(ControlPlaneErrors.unwrap(error));
        });
    }

    private CompletableFuture<Map<String, String>> tagsFrom(String arn, String token, Map<String, String> tags) {
        return client.listTagsOfResource(b -> b.resourceArn(arn).nextToken(token))
                .thenCompose((ListTagsOfResourceResponse page) -> {
                    page.tags().forEach(t -> tags.put(t.key(), t.value()));
                    return page.nextToken() == null ? CompletableFuture.completedFuture(tags) : tagsFrom(arn, page.nextToken(), tags);
                });
    }

    private CompletableFuture<Verdict> delete(String table) {
        return client.deleteTable(b -> b.tableName(table)).handle((response, error) -> {
            if (error == null || ControlPlaneErrors.isNotFound(error)) {
                stats.retentionDeletions.incrementAndGet();
                LOG.info("Deleted table {}: past tables.retention", table);
                return Verdict.DELETED;
            }
            if (ControlPlaneErrors.isDeletionProtected(error)) {
                return protectedTable(table);
            }
            throw new CompletionException(ControlPlaneErrors.unwrap(error));
        });
    }

    private Verdict protectedTable(String table) {
        stats.deletionProtectedSkips.incrementAndGet();
        LOG.warn("Table {} is past tables.retention but has deletion protection; not deleting it", table);
        return Verdict.PROTECTED;
    }
}
