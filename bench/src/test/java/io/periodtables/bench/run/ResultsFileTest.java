package io.periodtables.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Running one part alone adds its section to RESULTS.md and keeps every other result in it. */
class ResultsFileTest {

    private static final String EXISTING = "# benchmarks\n\n## 1. One\n\nfirst\n\n## 2. Two\n\nsecond\n";

    @Test
    void appendsANewSectionAndKeepsTheRest() {
        String out = ResultsFile.spliced(EXISTING, "## 7. Query\n\nnumbers\n");

        assertThat(out).isEqualTo(EXISTING + "\n## 7. Query\n\nnumbers\n");
    }

    @Test
    void replacesTheSectionOfTheSameHeadingOnly() {
        String once = ResultsFile.spliced(EXISTING, "## 1. One\n\nnew first\n");

        assertThat(once).isEqualTo("# benchmarks\n\n## 1. One\n\nnew first\n\n## 2. Two\n\nsecond\n");
        String last = ResultsFile.spliced(EXISTING + "\n## 7. Query\n\nold\n", "## 7. Query\n\nnew\n");
        assertThat(last).isEqualTo(EXISTING + "\n## 7. Query\n\nnew\n");
    }

    @Test
    void splicesTheWrittenSectionIntoTheFileOnDisk(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("RESULTS.md"), EXISTING);
        ResultsFile results = new ResultsFile(dir);

        results.writeSection("7-query.md", "## 7. Query\n\nnumbers\n");
        results.spliceSection("7-query.md");

        assertThat(Files.readString(dir.resolve("RESULTS.md")))
                .startsWith(EXISTING)
                .endsWith("## 7. Query\n\nnumbers\n");
    }

    @Test
    void assemblingKeepsTheSectionsNoFileReplaces(@TempDir Path dir) throws Exception {
        Files.writeString(
                dir.resolve("RESULTS.md"),
                "# old header\n\n## Machine\n\nold\n\n## 1. E2e\n\nold e2e\n\n"
                        + "## 2. Capacity\n\nold capacity\n\n### profile\n\nold profile\n\n## 3. Rollover\n\nold rollover\n");
        ResultsFile results = new ResultsFile(dir);
        results.writeSection("2-capacity.md", "## 2. Capacity\n\nnew capacity\n");

        results.assemble("# benchmarks\n\n## Machine\n\nnew\n");

        assertThat(Files.readString(dir.resolve("RESULTS.md")))
                .isEqualTo("# benchmarks\n\n## Machine\n\nnew\n\n"
                        + "## 1. E2e\n\nold e2e\n\n## 2. Capacity\n\nnew capacity\n\n## 3. Rollover\n\nold rollover\n");
    }

    @Test
    void assemblesSectionsByTheirNumber(@TempDir Path dir) throws Exception {
        ResultsFile results = new ResultsFile(dir);
        results.writeSection("11-freshness.md", "## 11. Freshness\n");
        results.writeSection("8-idle-kinesis.md", "## 8. Idle\n");
        results.writeSection("2-capacity.md", "## 2. Capacity\n");

        results.assemble("# benchmarks\n");

        assertThat(Files.readString(dir.resolve("RESULTS.md")))
                .isEqualTo("# benchmarks\n\n## 2. Capacity\n\n## 8. Idle\n\n## 11. Freshness\n");
    }
}
