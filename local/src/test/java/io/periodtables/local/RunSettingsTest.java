package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RunSettingsTest {

    @Test
    void theConfigurationPageAndTheHelpListEveryOptionOfTheLocalRun() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "configuration.md"));
        assertThat(RunSettings.OWN_OPTIONS)
                .allSatisfy(option -> assertThat(page).contains("`" + option))
                .allSatisfy(option -> assertThat(RunSettings.USAGE).contains(option));
    }
}
