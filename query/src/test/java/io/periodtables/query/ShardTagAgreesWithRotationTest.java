package io.periodtables.query;

import io.periodtables.conf.TableNaming;
import io.periodtables.rotation.TableManager;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The query reads the shard count from {@link TableNaming#SHARDS_TAG}; the rotation still writes
 * its own constant. Until it writes {@code TableNaming.SHARDS_TAG} itself, the two must agree.
 */
class ShardTagAgreesWithRotationTest {

    @Test
    void queryReadsTheShardTagTheRotationWrites() {
        assertThat(TableNaming.SHARDS_TAG).isEqualTo(TableManager.TAG_SHARDS);
    }
}
