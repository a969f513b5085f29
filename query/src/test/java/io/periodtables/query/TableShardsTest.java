package io.periodtables.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.period.TableNaming;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableShardsTest {

    private final FakeControlPlane dynamoDb = new FakeControlPlane()
            .table("r_2026-11-22", Map.of("managed-by", "period-tables", TableNaming.SHARDS_TAG, "6"))
            .table("r_2026-11-21", Map.of("managed-by", "period-tables"))
            .table("r_2026-11-20", Map.of(TableNaming.SHARDS_TAG, "many"))
            .tagsFail("r_2026-11-19", "User is not authorized to perform: dynamodb:ListTagsOfResource");
    private final TableShards shards = new TableShards(dynamoDb, new DynamoDbRetry(4), 2);

    @Test
    void shardCountComesFromTheTableTag() {
        assertThat(shards.of("r_2026-11-22").join()).contains(new TableShards.Shape(6, null));
    }

    @Test
    void untaggedOrUnreadableTagsFallBackToConfiguredShardsWithTheReason() {
        assertThat(shards.of("r_2026-11-21").join().get())
                .isEqualTo(new TableShards.Shape(2, "shard count 2 from tables.shards: no period-tables.shards tag"));
        assertThat(shards.of("r_2026-11-20").join().get().fallbackNote()).contains("'many' is not a shard count");
        assertThat(shards.of("r_2026-11-19").join().get().fallbackNote())
                .startsWith("shard count 2 from tables.shards: tags cannot be read")
                .contains("not authorized to perform: dynamodb:ListTagsOfResource");
    }

    @Test
    void aMissingTableIsAnAnswerNotAnError() {
        assertThat(shards.of("r_2026-01-01").join()).isEqualTo(Optional.empty());
    }

    @Test
    void throttledLookUpsAreRetriedAndTheAnswerIsRemembered() {
        dynamoDb.throttleNext.set(2);

        assertThat(shards.of("r_2026-11-22").join().get().shards()).isEqualTo(6);
        assertThat(shards.of("r_2026-11-22").join().get().shards()).isEqualTo(6);
        assertThat(dynamoDb.describes.get()).isEqualTo(3);
    }
}
