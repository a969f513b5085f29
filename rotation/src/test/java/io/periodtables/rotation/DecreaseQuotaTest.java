package io.periodtables.rotation;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class DecreaseQuotaTest {
    private static final Instant NOW = Instant.parse("2030-03-10T14:20:00Z");

    @Test
    void withoutARecentDecreaseTheNextTryIsAtTheNextFullUtcHour() {
        assertThat(DecreaseQuota.untilNextDecrease(NOW, throughput(4, "2030-03-10T09:00:00Z")))
                .isEqualTo(Duration.ofMinutes(40).plusSeconds(10));
        assertThat(DecreaseQuota.untilNextDecrease(NOW, null)).isEqualTo(Duration.ofMinutes(40).plusSeconds(10));
    }

    @Test
    void afterARecentDecreaseTheNextTryIsAnHourAfterIt() {
        assertThat(DecreaseQuota.untilNextDecrease(NOW, throughput(5, "2030-03-10T13:50:00Z")))
                .isEqualTo(Duration.ofMinutes(30).plusSeconds(10));
    }

    @Test
    void when27DecreasesAreUsedTheNextTryIsTheNextUtcDay() {
        assertThat(DecreaseQuota.untilNextDecrease(NOW, throughput(27, "2030-03-10T14:00:00Z")))
                .isEqualTo(Duration.ofHours(9).plusMinutes(40).plusSeconds(10));
    }

    private static ProvisionedThroughputDescription throughput(long decreasesToday, String lastDecrease) {
        return ProvisionedThroughputDescription.builder()
                .numberOfDecreasesToday(decreasesToday)
                .lastDecreaseDateTime(Instant.parse(lastDecrease))
                .readCapacityUnits(100L)
                .writeCapacityUnits(1L)
                .build();
    }
}
