package io.periodtables.query;

import io.periodtables.core.dynamodb.LatestTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * {@code latest} from the latest table ({@link LatestTable}): one consistent {@code GetItem} per
 * device, all in parallel, or the whole fleet by {@code Scan}, page by page, sorted by device.
 * When the table does not exist (a job with {@code latest.enabled=false}, or older than the
 * table), each device's newest reading is found by walking its period tables instead
 * ({@link LatestReader}); the fleet cannot be, as only the latest table knows the devices.
 */
final class LatestTableReader {

    private final DynamoDbAsyncClient client;
    private final DynamoDbRetry retry;
    private final LatestTable table;
    private final LatestReader walk;
    private final int pageSize;

    LatestTableReader(
            DynamoDbAsyncClient client, DynamoDbRetry retry, LatestTable table, LatestReader walk, int pageSize) {
        this.client = client;
        this.retry = retry;
        this.table = table;
        this.walk = walk;
        this.pageSize = pageSize;
    }

    /** The newest reading of each of {@code devices}, in their order; those without one are {@code notFound}. */
    LatestResult of(List<String> devices) {
        List<CompletableFuture<Optional<LatestTable.Latest>>> gets = new ArrayList<>();
        devices.forEach(device -> gets.add(retry.call(() -> table.get(device))));
        List<StoredReading> readings = new ArrayList<>();
        List<String> notFound = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            Optional<LatestTable.Latest> latest = Futures.await(gets.get(i), "Reading " + table.name());
            if (latest.isPresent()) {
                readings.add(StoredReading.of(latest.get()));
            } else {
                notFound.add(devices.get(i));
            }
        }
        long requests = devices.size();
        if (notFound.isEmpty()) {
            return new LatestResult(readings, table.name(), notFound, requests, List.of());
        }
        requests++; // a device without a reading: is it the device, or the table?
        if (exists()) {
            return new LatestResult(readings, table.name(), notFound, requests, List.of());
        }
        readings.clear();
        notFound.clear();
        for (String device : devices) {
            QueryResult walked = walk.read(device, 1);
            requests += walked.report().requests();
            if (walked.readings().isEmpty()) {
                notFound.add(device);
            } else {
                readings.add(walked.readings().get(0));
            }
        }
        return new LatestResult(
                readings,
                "the period tables",
                notFound,
                requests,
                List.of(table.name() + " does not exist (latest.enabled=false, or a job older than it):"
                        + " each device's newest reading was looked for in the period and late tables"));
    }

    /** Every device's newest reading, sorted by device. */
    LatestResult fleet() {
        List<StoredReading> readings = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        long requests = 0;
        do {
            Map<String, AttributeValue> from = start;
            ScanResponse page;
            try {
                // without a page size, DynamoDB's own: 1 MB (Limit must be given, and has no maximum)
                page = Futures.await(
                        retry.call(() -> table.page(from, pageSize > 0 ? pageSize : Integer.MAX_VALUE)),
                        "Scanning " + table.name());
            } catch (QueryFailedException e) {
                if (DynamoDbRetry.isNotFound(e.getCause())) {
                    throw new NotStoredException(table.name() + " does not exist: --all lists the latest table,"
                            + " which the job keeps when latest.enabled is true (the default)");
                }
                throw e;
            }
            requests++;
            LatestTable.latest(page).forEach(latest -> readings.add(StoredReading.of(latest)));
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        readings.sort(Comparator.comparing(StoredReading::deviceId));
        return new LatestResult(readings, table.name(), List.of(), requests, List.of());
    }

    private boolean exists() {
        return Futures.await(
                retry.call(() -> client.describeTable(b -> b.tableName(table.name())))
                        .thenApply(described -> true)
                        .exceptionallyCompose(error -> DynamoDbRetry.isNotFound(error)
                                ? CompletableFuture.completedFuture(false)
                                : CompletableFuture.failedFuture(error)),
                "Describing " + table.name());
    }
}
