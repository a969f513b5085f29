package io.periodtables.query;

import io.periodtables.core.period.TableNaming;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.ListTablesResponse;

/**
 * The tables of one prefix that exist, from {@code ListTables}, read back into periods and late
 * months with {@link TableNaming#parse}. The whole list is read (100 names a page): DynamoDB
 * documents neither the order of the names nor a start name that is not a table, so the
 * prefix is filtered here rather than searched for.
 */
final class TableCatalog {

    private final DynamoDbAsyncClient client;
    private final DynamoDbRetry retry;
    private final TableNaming naming;

    TableCatalog(DynamoDbAsyncClient client, DynamoDbRetry retry, TableNaming naming) {
        this.client = client;
        this.retry = retry;
        this.naming = naming;
    }

    /** Period tables (newest period first) and late tables (newest month first) of this prefix. */
    CompletableFuture<Tables> list() {
        return names(null, new ArrayList<>()).thenApply(names -> {
            List<TableNaming.TableRef> periods = new ArrayList<>();
            List<TableNaming.TableRef> late = new ArrayList<>();
            for (String name : names) {
                naming.parse(name).ifPresent(ref -> {
                    if (ref.kind() == TableNaming.TableRef.Kind.PERIOD) {
                        periods.add(ref);
                    } else if (ref.kind() == TableNaming.TableRef.Kind.LATE) {
                        late.add(ref);
                    }
                });
            }
            periods.sort(Comparator.comparing(
                            (TableNaming.TableRef ref) -> ref.period().start())
                    .reversed());
            late.sort(Comparator.comparing(TableNaming.TableRef::lateMonth).reversed());
            return new Tables(List.copyOf(periods), List.copyOf(late));
        });
    }

    private CompletableFuture<List<String>> names(String startAfter, List<String> found) {
        return retry.call(() -> client.listTables(
                        b -> b.exclusiveStartTableName(startAfter).limit(100)))
                .thenCompose((ListTablesResponse page) -> {
                    page.tableNames().stream().filter(naming::hasOurPrefix).forEach(found::add);
                    String last = page.lastEvaluatedTableName();
                    return last == null ? CompletableFuture.completedFuture(found) : names(last, found);
                });
    }

    /** The existing period tables (newest first) and late tables (newest month first) of a prefix. */
    record Tables(List<TableNaming.TableRef> periodTables, List<TableNaming.TableRef> lateTables) {}
}
