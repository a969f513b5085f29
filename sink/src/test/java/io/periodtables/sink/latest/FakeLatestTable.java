package io.periodtables.sink.latest;

import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbAsyncWaiter;

/**
 * The latest table as a {@link LatestWriter} sees it, in memory: every put stored after a round
 * trip of {@code roundTrip} on a timer thread of its own, counting the puts in flight at once; and
 * its control plane: a table that exists or not, whose warm throughput stays {@code UPDATING} for
 * the next {@code describes} after a change, and scripted refusals of its creation.
 */
class FakeLatestTable implements DynamoDbAsyncClient {
    private final Duration roundTrip;
    private final ScheduledExecutorService answers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake-latest-table");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostInFlight = new AtomicInteger();
    private final AtomicInteger puts = new AtomicInteger();
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger settled = new AtomicInteger();
    /** Per device, the sort keys of its puts in the order they were sent. */
    private final Map<String, List<String>> putsOf = new ConcurrentHashMap<>();

    private final AtomicInteger putsWhileWarming = new AtomicInteger();
    private final Deque<RuntimeException> createFailures = new ConcurrentLinkedDeque<>();
    private volatile boolean exists;
    private volatile long warmWrites;
    private final AtomicInteger describesUpdating = new AtomicInteger();
    private final int describesPerChange;

    FakeLatestTable(Duration roundTrip) {
        this(roundTrip, 0);
    }

    /** Warm throughput changes report {@code UPDATING} to the next {@code describesPerChange} describes. */
    FakeLatestTable(Duration roundTrip, int describesPerChange) {
        this.roundTrip = roundTrip;
        this.describesPerChange = describesPerChange;
    }

    /** The table exists, its warm throughput just raised to {@code units} (by another writer). */
    FakeLatestTable raised(long units) {
        exists = true;
        warmWrites = units;
        describesUpdating.set(describesPerChange);
        return this;
    }

    /** The next creation fails with {@code error}. */
    FakeLatestTable refuseCreation(RuntimeException error) {
        createFailures.add(error);
        return this;
    }

    static LimitExceededException limitExceeded(String message) {
        return (LimitExceededException) LimitExceededException.builder()
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode("LimitExceededException")
                        .errorMessage(message)
                        .build())
                .statusCode(400)
                .message(message)
                .build();
    }

    @Override
    public CompletableFuture<DescribeTableResponse> describeTable(DescribeTableRequest request) {
        if (!exists) {
            return CompletableFuture.failedFuture(ResourceNotFoundException.builder()
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("ResourceNotFoundException")
                            .errorMessage("Requested resource not found")
                            .build())
                    .statusCode(400)
                    .build());
        }
        boolean updating = describesUpdating.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
        TableDescription.Builder table =
                TableDescription.builder().tableName(request.tableName()).tableStatus(TableStatus.ACTIVE);
        if (warmWrites > 0) {
            table.warmThroughput(w ->
                    w.writeUnitsPerSecond(warmWrites).status(updating ? TableStatus.UPDATING : TableStatus.ACTIVE));
        }
        return CompletableFuture.completedFuture(
                DescribeTableResponse.builder().table(table.build()).build());
    }

    @Override
    public CompletableFuture<CreateTableResponse> createTable(CreateTableRequest request) {
        RuntimeException refused = createFailures.poll();
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        raised(request.warmThroughput() == null ? 0 : request.warmThroughput().writeUnitsPerSecond());
        return CompletableFuture.completedFuture(CreateTableResponse.builder().build());
    }

    @Override
    public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
        sent.incrementAndGet();
        putsOf.computeIfAbsent(request.item().get("pk").s(), d -> new CopyOnWriteArrayList<>())
                .add(request.item().get("sk").s());
        mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        if (describesUpdating.get() > 0) {
            putsWhileWarming.incrementAndGet();
        }
        CompletableFuture<PutItemResponse> answer = new CompletableFuture<>();
        answers.schedule(
                () -> {
                    inFlight.decrementAndGet();
                    puts.incrementAndGet();
                    answer.complete(PutItemResponse.builder().build());
                    settled.incrementAndGet(); // the writer's answer is in its mailbox by now
                },
                roundTrip.toNanos(),
                TimeUnit.NANOSECONDS);
        return answer;
    }

    int puts() {
        return puts.get();
    }

    /** Puts sent. */
    int sent() {
        return sent.get();
    }

    /** Puts answered, their answers handed to the writer. */
    int settled() {
        return settled.get();
    }

    /** The sort key of {@code device}'s last put, null before its first. */
    String lastPutOf(String device) {
        List<String> keys = putsOf.get(device);
        return keys == null ? null : keys.get(keys.size() - 1);
    }

    /** The puts of {@code device} sent. */
    int putsOf(String device) {
        List<String> keys = putsOf.get(device);
        return keys == null ? 0 : keys.size();
    }

    /** Puts sent while the warm throughput was still UPDATING. */
    int putsWhileWarming() {
        return putsWhileWarming.get();
    }

    int mostInFlight() {
        return mostInFlight.get();
    }

    @Override
    public DynamoDbAsyncWaiter waiter() {
        return DynamoDbAsyncWaiter.builder().client(this).build();
    }

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {
        answers.shutdownNow();
    }
}
