package io.periodtables.rotation.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.retries.api.BackoffStrategy;

class TableCallsTest {

    /**
     * Issue 58: a table on its way to ACTIVE is asked again soon, then less often: the first
     * table's writes and the end of a bounded input wait for the answer, and at a fixed 2 s a
     * table ACTIVE after half a second (dynalite) was reported a second and a half late.
     */
    @Test
    void aTableOnItsWayToActiveIsPolledAfter200MsThenTwiceAsLongUpToThePollInterval() {
        BackoffStrategy defaults = TableCalls.pollBackoff(TableManagerSettings.defaults());
        // the SDK's waiter asks for the delay of attempt n + 2 after its n-th poll
        assertThat(IntStream.rangeClosed(3, 8).mapToObj(defaults::computeDelay))
                .containsExactly(
                        Duration.ofMillis(200),
                        Duration.ofMillis(400),
                        Duration.ofMillis(800),
                        Duration.ofMillis(1600),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(2));
        BackoffStrategy fast = TableCalls.pollBackoff(TableManagerSettings.builder()
                .pollInterval(Duration.ofMillis(20))
                .build());
        assertThat(fast.computeDelay(3)).as("never above the interval").isEqualTo(Duration.ofMillis(20));
        assertThat(fast.computeDelay(6)).isEqualTo(Duration.ofMillis(20));
    }
}
