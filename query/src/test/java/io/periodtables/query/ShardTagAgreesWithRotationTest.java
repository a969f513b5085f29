package io.periodtables.query;

import io.periodtables.rotation.TableManager;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The query reads the shard count from the tag the rotation writes; query may not depend on rotation at run time. */
class ShardTagAgreesWithRotationTest {

    @Test
    void queryReadsTheShardTagTheRotationWrites() {
        assertThat(TableShards.SHARDS_TAG).isEqualTo(TableManager.TAG_SHARDS);
    }
}
