package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fidelity layers' node files stay one documented rule a file: a launcher or rule file past 500
 * lines holds more than one rule (see STYLE.md, "A file does one job"), so it is split by rule.
 */
class NodeLayerFilesTest {
    private static final int MAX_LINES = 500;

    @Test
    void noNodeFileOfOursIsLongerThanFiveHundredLines() throws IOException {
        Path dir = NodeEmulators.dir();
        Map<Path, Long> tooLong;
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> ours = files.filter(p -> !dir.relativize(p).startsWith("node_modules"))
                    .filter(p -> p.toString().endsWith(".js"))
                    .collect(Collectors.toList());
            assertThat(ours).as("node files under %s", dir).contains(dir.resolve("dynalite.js"));
            tooLong =
                    ours.stream()
                            .collect(Collectors.toMap(dir::relativize, NodeLayerFilesTest::lines))
                            .entrySet()
                            .stream()
                            .filter(e -> e.getValue() > MAX_LINES)
                            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        }
        assertThat(tooLong)
                .as("node files over %d lines: split them by rule", MAX_LINES)
                .isEmpty();
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }
}
