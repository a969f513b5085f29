package io.periodtables.sink.latest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;

/**
 * The latest table as a {@link LatestWriter} sees it, in memory: every put stored after a round
 * trip of {@code roundTrip} on a timer thread of its own, counting the puts in flight at once.
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

    FakeLatestTable(Duration roundTrip) {
        this.roundTrip = roundTrip;
    }

    @Override
    public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
        mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        CompletableFuture<PutItemResponse> answer = new CompletableFuture<>();
        answers.schedule(
                () -> {
                    inFlight.decrementAndGet();
                    puts.incrementAndGet();
                    answer.complete(PutItemResponse.builder().build());
                },
                roundTrip.toNanos(),
                TimeUnit.NANOSECONDS);
        return answer;
    }

    int puts() {
        return puts.get();
    }

    int mostInFlight() {
        return mostInFlight.get();
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
