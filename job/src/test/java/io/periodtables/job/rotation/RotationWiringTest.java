package io.periodtables.job.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rotation waits only for the writer groups that can write a period table. */
class RotationWiringTest {

    @Test
    void withLateReadingsInLateTablesOnlyThePeriodWritersHoldALowering() {
        assertThat(RotationWiring.writerGroups(ConfigLoader.fromMap(Map.of("late.policy", "late-table"), true)))
                .containsExactly(RotationWiring.PERIOD_WRITERS);
    }

    @Test
    void withLateReadingsInPeriodTablesTheLateWritersHoldALoweringToo() {
        assertThat(RotationWiring.writerGroups(ConfigLoader.fromMap(Map.of("late.policy", "period-table"), true)))
                .containsExactly(RotationWiring.PERIOD_WRITERS, RotationWiring.LATE_WRITERS);
    }
}
