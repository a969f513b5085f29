package io.periodtables.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.capacity.Capacity;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command's options and its estimate, before anything is created. */
class VerifyOptionsTest {

    @Test
    void aPeriodMustDivideADayInWholeHalfMinutes() {
        assertThat(VerifyOptions.parse(List.of("--period", "PT5M")).period()).isEqualTo(Duration.ofMinutes(5));
        for (String bad : List.of("PT7M", "PT10S", "PT2H", "P1D", "soon")) {
            assertThatThrownBy(() -> VerifyOptions.parse(List.of("--period", bad)))
                    .hasMessageStartingWith("Invalid argument --period '" + bad + "'");
        }
    }

    @Test
    void aRunNeverMixesAwsAndAnEmulator() {
        assertThatThrownBy(() -> VerifyOptions.parse(List.of("--dynamodb-endpoint", "http://127.0.0.1:1")))
                .hasMessageContaining("go together");
        assertThatThrownBy(() -> VerifyOptions.parse(List.of("--emulators", "--kinesis-endpoint", "http://h:1")))
                .hasMessageContaining("--emulators starts its own");
    }

    @Test
    void aBadOptionIsOneLineAndExitCodeTwoBeforeAnythingIsCreated() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = new Verify(
                        new PrintStream(bytes, true, StandardCharsets.UTF_8), new ByteArrayInputStream(new byte[0]))
                .run(List.of("--yes", "--regoin", "eu-west-1"), false);

        assertThat(code).isEqualTo(2);
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("Unknown option '--regoin'; ./verify --help lists the options" + System.lineSeparator());
    }

    @Test
    void aRunCostsWellUnderADollarAtListPrices() {
        CostEstimate estimate = new CostEstimate(2, 8, Capacity.provisioned(5, 5), 47, 500);

        assertThat(estimate.total()).isLessThan(0.10);
        assertThat(estimate.lines()).last().isEqualTo("  Total: at most $0.06 (storage: a few KB, deleted at the end)");
    }
}
