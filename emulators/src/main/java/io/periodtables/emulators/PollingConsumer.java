package io.periodtables.emulators;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Another consumer application of a stream, polling as the Kinesis Client Library does by default:
 * each shard open when it starts, from TRIM_HORIZON, one GetRecords a second (a refused call is
 * tried again the next second). It shares the shards' read limits with the job, through the
 * Kinesis layer; it counts what it read and what was refused. Stops on {@link #close()}.
 */
public final class PollingConsumer implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Thread thread;

    private PollingConsumer(Kinesalite kinesalite, String stream) {
        this.thread = new Thread(() -> poll(kinesalite, stream), "polling-consumer-" + stream);
        thread.setDaemon(true);
    }

    /** Starts polling every shard of {@code stream}. */
    public static PollingConsumer start(Kinesalite kinesalite, String stream) {
        PollingConsumer consumer = new PollingConsumer(kinesalite, stream);
        consumer.thread.start();
        return consumer;
    }

    /** Records read so far. */
    public long records() {
        return records.get();
    }

    /** Bytes read so far: data and partition keys, as the layer counts them. */
    public long bytes() {
        return bytes.get();
    }

    /** GetRecords calls Kinesis refused so far. */
    public long refused() {
        return refused.get();
    }

    private void poll(Kinesalite kinesalite, String stream) {
        try (KinesisClient client = kinesalite.kinesisClientWithoutRetries()) {
            List<String> iterators = new ArrayList<>();
            for (Shard shard : client.listShards(b -> b.streamName(stream)).shards()) {
                iterators.add(client.getShardIterator(b -> b.streamName(stream)
                                .shardId(shard.shardId())
                                .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                        .shardIterator());
            }
            while (!stop.get()) {
                for (int i = 0; i < iterators.size(); i++) {
                    String iterator = iterators.get(i);
                    if (iterator == null) {
                        continue; // a closed shard read to its end
                    }
                    try {
                        GetRecordsResponse response = client.getRecords(b -> b.shardIterator(iterator));
                        records.addAndGet(response.records().size());
                        response.records()
                                .forEach(r -> bytes.addAndGet(r.data().asByteArrayUnsafe().length
                                        + r.partitionKey().length()));
                        iterators.set(i, response.nextShardIterator());
                    } catch (ProvisionedThroughputExceededException e) {
                        refused.incrementAndGet();
                    }
                }
                TimeUnit.SECONDS.sleep(1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(TimeUnit.SECONDS.toMillis(10));
    }
}
