package io.periodtables.job.kinesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.flink.annotation.VisibleForTesting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * The parents of a stream's shards, as {@code ListShards} names them ({@code ParentShardId}, and
 * {@code AdjacentParentShardId} for a merge). Listed again when a shard is asked for that the last
 * listing did not have, once per such shard: one that listing does not have either (a shard Kinesis
 * deleted past the retention) has no parents here from then on.
 */
interface ShardLineage extends AutoCloseable {

    /** The shard's parents, empty for a shard of the stream's creation. */
    List<String> parents(String streamArn, String shardId);

    @Override
    void close();

    /** Lineage from Kinesis through {@code client}, listed lazily and kept. */
    static ShardLineage of(Supplier<KinesisClient> client) {
        return new Listed(client, Thread::sleep);
    }

    @VisibleForTesting
    static ShardLineage of(Supplier<KinesisClient> client, Pause pause) {
        return new Listed(client, pause);
    }

    /** How a retry waits: {@link Thread#sleep(long)}, or a test's record of it. */
    @FunctionalInterface
    interface Pause {
        void sleep(long millis) throws InterruptedException;
    }

    /**
     * Listed through ListShards; used in the coordinator thread only. A listing Kinesis refused
     * (throttling) or failed transiently (5xx, the connection) is tried again after
     * {@link #FIRST_BACKOFF} doubling, {@link #ATTEMPTS} times in all, before the failure reaches the
     * enumerator and fails the job: a lookup happens at a reshard only, and holding the coordinator
     * thread up to 7.5 s beats restarting every task of the job over one failed call.
     */
    final class Listed implements ShardLineage {
        private static final Logger LOG = LoggerFactory.getLogger(ShardLineage.class);
        static final int ATTEMPTS = 5;
        static final Duration FIRST_BACKOFF = Duration.ofMillis(500);

        private final Supplier<KinesisClient> supplier;
        private final Pause pause;
        private final Map<String, List<String>> parents = new HashMap<>();
        /** Shards a listing made after they were asked for did not have. */
        private final Set<String> unlisted = new HashSet<>();

        private KinesisClient client;

        private Listed(Supplier<KinesisClient> supplier, Pause pause) {
            this.supplier = supplier;
            this.pause = pause;
        }

        @Override
        public List<String> parents(String streamArn, String shardId) {
            List<String> known = parents.get(shardId);
            if (known == null && !unlisted.contains(shardId)) {
                listRetrying(streamArn);
                known = parents.get(shardId);
                if (known == null) {
                    unlisted.add(shardId);
                }
            }
            return known == null ? List.of() : known;
        }

        private void listRetrying(String streamArn) {
            long backoff = FIRST_BACKOFF.toMillis();
            for (int attempt = 1; ; attempt++) {
                try {
                    list(streamArn);
                    return;
                } catch (SdkException e) {
                    boolean retryable = KinesisFailures.isThrottling(e) || KinesisFailures.isTransient(e);
                    if (!retryable || attempt == ATTEMPTS) {
                        throw e;
                    }
                    LOG.warn(
                            "ListShards of {} failed ({}); listing again in {} ms (attempt {} of {})",
                            streamArn,
                            e.getMessage(),
                            backoff,
                            attempt + 1,
                            ATTEMPTS);
                }
                try {
                    pause.sleep(backoff);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while listing the shards of " + streamArn, e);
                }
                backoff *= 2;
            }
        }

        private void list(String streamArn) {
            if (client == null) {
                client = supplier.get();
            }
            Map<String, List<String>> listed = new HashMap<>();
            String next = null;
            do {
                String token = next;
                ListShardsResponse page =
                        client.listShards(r -> r.nextToken(token).streamARN(token == null ? streamArn : null));
                for (Shard shard : page.shards()) {
                    List<String> of = new ArrayList<>(2);
                    if (shard.parentShardId() != null) {
                        of.add(shard.parentShardId());
                    }
                    if (shard.adjacentParentShardId() != null) {
                        of.add(shard.adjacentParentShardId());
                    }
                    listed.put(shard.shardId(), List.copyOf(of));
                }
                next = page.nextToken();
            } while (next != null);
            parents.putAll(listed);
        }

        @Override
        public void close() {
            if (client != null) {
                client.close();
            }
        }
    }
}
