package io.periodtables.emulators;

import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableResponse;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What DynamoDB Local does not do about provisioned capacity, done as DynamoDB does it, for
 * {@link DynamoDbFaults#enforceThroughput}: each provisioned table's writes are limited by a
 * token bucket at its current write capacity (1 WCU per started KB of an item; the bucket holds
 * {@code burst} of unused capacity, DynamoDB keeps up to 300 s), so BatchWriteItem returns what
 * does not fit as UnprocessedItems, or fails with ProvisionedThroughputExceededException when
 * nothing fits; and capacity decreases follow the daily quota (4 at any time, then one an hour
 * after the last), refused with LimitExceededException, with the history (last increase, last
 * decrease, decreases today) reported in DescribeTable as DynamoDB does. Capacities are learned
 * from the CreateTable, UpdateTable and DescribeTable calls that pass the interceptor.
 */
final class ProvisionedThroughput {
    private final Duration burst;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();

    ProvisionedThroughput(Duration burst) {
        this.burst = burst;
    }

    /** One provisioned table's bucket and decrease history; guarded by its own lock. */
    private final class Table {
        long writeUnits;
        long readUnits;
        double tokens;
        long refilledNanos = System.nanoTime();
        Instant lastIncrease;
        Instant lastDecrease;
        LocalDate decreaseDay;
        int decreasesToday;

        Table(long writeUnits, long readUnits) {
            this.writeUnits = writeUnits;
            this.readUnits = readUnits;
            this.tokens = capacity();
        }

        double capacity() {
            return Math.max(1.0, writeUnits * (burst.toMillis() / 1000.0));
        }

        void refill() {
            long now = System.nanoTime();
            tokens = Math.min(capacity(), tokens + writeUnits * (now - refilledNanos) / 1e9);
            refilledNanos = now;
        }

        boolean take(long units) {
            if (tokens >= units) {
                tokens -= units;
                return true;
            }
            return false;
        }

        int decreasesToday(Instant now) {
            return LocalDate.ofInstant(now, ZoneOffset.UTC).equals(decreaseDay) ? decreasesToday : 0;
        }
    }

    /** The throttled part of a write, or null when it all fits. */
    PartialBatch admit(BatchWriteItemRequest request) {
        PartialBatch split = PartialBatch.select(request, (tableName, write) -> {
            Table table = tables.get(tableName);
            if (table == null || write.putRequest() == null) {
                return false;
            }
            synchronized (table) {
                table.refill();
                return !table.take(writeUnits(write.putRequest().item()));
            }
        });
        return split.nothingHeldBack() ? null : split;
    }

    /** True when DynamoDB would refuse this UpdateTable for the decrease quota. */
    boolean refusesDecrease(UpdateTableRequest update) {
        Table table = tables.get(update.tableName());
        if (table == null || update.provisionedThroughput() == null) {
            return false;
        }
        synchronized (table) {
            boolean decrease = update.provisionedThroughput().writeCapacityUnits() < table.writeUnits
                    || update.provisionedThroughput().readCapacityUnits() < table.readUnits;
            Instant now = Instant.now();
            int today = table.decreasesToday(now);
            boolean allowed = today < 4 || (today < 27 && (table.lastDecrease == null
                    || !table.lastDecrease.plus(Duration.ofHours(1)).isAfter(now)));
            return decrease && !allowed;
        }
    }

    /** Learns capacities from successful calls; returns the response with the history DynamoDB reports. */
    SdkResponse observe(SdkRequest request, SdkResponse response) {
        if (request instanceof CreateTableRequest create && response instanceof CreateTableResponse
                && create.billingMode() != BillingMode.PAY_PER_REQUEST && create.provisionedThroughput() != null) {
            tables.put(create.tableName(), new Table(create.provisionedThroughput().writeCapacityUnits(),
                    create.provisionedThroughput().readCapacityUnits()));
        } else if (request instanceof UpdateTableRequest update && response instanceof UpdateTableResponse updated) {
            changed(update);
            return updated.toBuilder().tableDescription(withHistory(updated.tableDescription())).build();
        } else if (response instanceof DescribeTableResponse describe && describe.table() != null) {
            learn(describe.table());
            return describe.toBuilder().table(withHistory(describe.table())).build();
        }
        return response;
    }

    private void changed(UpdateTableRequest update) {
        if (update.billingMode() == BillingMode.PAY_PER_REQUEST) {
            tables.remove(update.tableName());
            return;
        }
        if (update.provisionedThroughput() == null) {
            return;
        }
        long write = update.provisionedThroughput().writeCapacityUnits();
        long read = update.provisionedThroughput().readCapacityUnits();
        Table table = tables.computeIfAbsent(update.tableName(), t -> new Table(write, read));
        synchronized (table) {
            Instant now = Instant.now();
            if (write < table.writeUnits || read < table.readUnits) {
                table.decreasesToday = table.decreasesToday(now) + 1;
                table.decreaseDay = LocalDate.ofInstant(now, ZoneOffset.UTC);
                table.lastDecrease = now;
            }
            if (write > table.writeUnits || read > table.readUnits) {
                table.lastIncrease = now;
            }
            table.refill();
            boolean moreWrites = write > table.writeUnits;
            table.writeUnits = write;
            table.readUnits = read;
            // the new rate is there at once: a second of it, as if the table had been at it a while
            table.tokens = Math.min(moreWrites ? Math.max(table.tokens, write) : table.tokens, table.capacity());
        }
    }

    private void learn(TableDescription description) {
        ProvisionedThroughputDescription throughput = description.provisionedThroughput();
        boolean onDemand = description.billingModeSummary() != null
                && description.billingModeSummary().billingMode() == BillingMode.PAY_PER_REQUEST;
        if (onDemand || throughput == null || throughput.writeCapacityUnits() == null || throughput.writeCapacityUnits() == 0) {
            tables.remove(description.tableName());
            return;
        }
        Table table = tables.computeIfAbsent(description.tableName(),
                t -> new Table(throughput.writeCapacityUnits(), throughput.readCapacityUnits()));
        synchronized (table) {
            table.writeUnits = throughput.writeCapacityUnits();
            table.readUnits = throughput.readCapacityUnits();
        }
    }

    private TableDescription withHistory(TableDescription description) {
        Table table = description == null ? null : tables.get(description.tableName());
        if (table == null || description.provisionedThroughput() == null) {
            return description;
        }
        synchronized (table) {
            return description.toBuilder().provisionedThroughput(description.provisionedThroughput().toBuilder()
                    .lastIncreaseDateTime(table.lastIncrease)
                    .lastDecreaseDateTime(table.lastDecrease)
                    .numberOfDecreasesToday((long) table.decreasesToday(Instant.now()))
                    .build()).build();
        }
    }

    /** Write units of one item: 1 per started KB of attribute names and values (approximately DynamoDB's rule). */
    private static long writeUnits(Map<String, AttributeValue> item) {
        long bytes = 0;
        for (Map.Entry<String, AttributeValue> attribute : item.entrySet()) {
            bytes += attribute.getKey().getBytes(StandardCharsets.UTF_8).length + size(attribute.getValue());
        }
        return Math.max(1, (bytes + 1023) / 1024);
    }

    private static long size(AttributeValue value) {
        if (value.s() != null) {
            return value.s().getBytes(StandardCharsets.UTF_8).length;
        }
        if (value.n() != null) {
            return value.n().length();
        }
        return value.toString().length();
    }
}
