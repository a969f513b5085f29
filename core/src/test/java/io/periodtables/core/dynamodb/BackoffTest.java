package io.periodtables.core.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2));

    @Test
    void doublesFromTheInitialDelayUpToTheMaxWithJitterInTheUpperHalf() {
        assertThat(backoff.delayMillis(0)).isZero();
        for (int i = 0; i < 200; i++) {
            assertThat(backoff.delayMillis(1)).isBetween(50L, 100L);
            assertThat(backoff.delayMillis(3)).isBetween(200L, 400L);
            assertThat(backoff.delayMillis(40)).isBetween(1_000L, 2_000L);
        }
    }

    @Test
    void refusesADelayThatIsNotPositiveOrAMaxBelowTheInitial() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .hasMessageContaining("initial delay must be positive");
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("max delay");
    }
}
