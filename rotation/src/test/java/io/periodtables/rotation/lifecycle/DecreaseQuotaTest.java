package io.periodtables.rotation.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DecreaseQuotaTest {
    private static final Instant NOW = Instant.parse("2030-03-10T14:20:00Z");

    @Test
    void fourDecreasesADayAreFreeThenOneAnHourAfterTheLast() {
        assertThat(DecreaseQuota.allows(NOW, table(3, "2030-03-10T14:10:00Z"))).isTrue();
        assertThat(DecreaseQuota.allows(NOW, table(4, "2030-03-10T14:10:00Z"))).isFalse();
        assertThat(DecreaseQuota.allows(NOW, table(4, "2030-03-10T13:20:00Z"))).isTrue();
        assertThat(DecreaseQuota.allows(NOW, table(27, "2030-03-10T09:00:00Z"))).isFalse();
        assertThat(DecreaseQuota.allows(NOW, table(27, "2030-03-09T23:00:00Z")))
                .as("yesterday's count")
                .isTrue();
    }

    @Test
    void withoutARecentDecreaseTheNextTryIsAtTheNextFullUtcHour() {
        assertThat(DecreaseQuota.next(NOW, table(4, "2030-03-10T09:00:00Z")))
                .isEqualTo(Instant.parse("2030-03-10T15:00:10Z"));
        assertThat(DecreaseQuota.next(NOW, null)).isEqualTo(Instant.parse("2030-03-10T15:00:10Z"));
    }

    @Test
    void afterARecentDecreaseTheNextTryIsAnHourAfterIt() {
        assertThat(Duration.between(NOW, DecreaseQuota.next(NOW, table(5, "2030-03-10T13:50:00Z"))))
                .isEqualTo(Duration.ofMinutes(30).plusSeconds(10));
    }

    @Test
    void when27DecreasesAreUsedTheNextTryIsTheNextUtcDay() {
        assertThat(DecreaseQuota.next(NOW, table(27, "2030-03-10T14:00:00Z")))
                .isEqualTo(Instant.parse("2030-03-11T00:00:10Z"));
    }

    private static ManagedTable table(long decreasesToday, String lastDecrease) {
        return new ManagedTable(
                "t",
                "ACTIVE",
                Capacity.provisioned(1, 100),
                false,
                decreasesToday,
                Instant.parse(lastDecrease),
                null,
                false,
                ManagedTable.STANDARD,
                0);
    }
}
