package io.periodtables.job.kinesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * The parents of a stream's shards, as {@code ListShards} names them ({@code ParentShardId}, and
 * {@code AdjacentParentShardId} for a merge). Listed again when a shard is asked for that the last
 * listing did not have; a shard Kinesis no longer lists (past the retention) has no parents here.
 */
interface ShardLineage extends AutoCloseable {

    /** The shard's parents, empty for a shard of the stream's creation. */
    List<String> parents(String streamArn, String shardId);

    @Override
    void close();

    /** Lineage from Kinesis through {@code client}, listed lazily and kept. */
    static ShardLineage of(Supplier<KinesisClient> client) {
        return new Listed(client);
    }

    /** Listed through ListShards; used in the coordinator thread only. */
    final class Listed implements ShardLineage {
        private final Supplier<KinesisClient> supplier;
        private final Map<String, List<String>> parents = new HashMap<>();
        private KinesisClient client;

        private Listed(Supplier<KinesisClient> supplier) {
            this.supplier = supplier;
        }

        @Override
        public List<String> parents(String streamArn, String shardId) {
            List<String> known = parents.get(shardId);
            if (known == null) {
                list(streamArn);
                known = parents.getOrDefault(shardId, List.of());
            }
            return known;
        }

        private void list(String streamArn) {
            if (client == null) {
                client = supplier.get();
            }
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
                    parents.put(shard.shardId(), List.copyOf(of));
                }
                next = page.nextToken();
            } while (next != null);
        }

        @Override
        public void close() {
            if (client != null) {
                client.close();
            }
        }
    }
}
