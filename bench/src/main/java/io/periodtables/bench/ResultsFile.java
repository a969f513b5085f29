package io.periodtables.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code bench/RESULTS.md}: a header with the machine facts, then one section per benchmark. Each
 * benchmark writes its section to {@code bench/target/results/<n>-<name>.md}, so one benchmark
 * can be run again alone; the file is assembled from all sections present.
 */
final class ResultsFile {

    private final Path benchDir;

    ResultsFile(Path benchDir) {
        this.benchDir = benchDir;
    }

    Path sectionsDir() {
        return benchDir.resolve("target").resolve("results");
    }

    void writeSection(String fileName, String markdown) throws IOException {
        Files.createDirectories(sectionsDir());
        Files.writeString(sectionsDir().resolve(fileName), markdown);
    }

    /** Writes RESULTS.md from the header and every section file, in file-name order. */
    Path assemble(String header) throws IOException {
        List<Path> sections = new ArrayList<>();
        if (Files.isDirectory(sectionsDir())) {
            try (Stream<Path> files = Files.list(sectionsDir())) {
                files.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(sections::add);
            }
        }
        StringBuilder out = new StringBuilder(header);
        for (Path section : sections) {
            out.append('\n').append(Files.readString(section));
        }
        Path results = benchDir.resolve("RESULTS.md");
        Files.writeString(results, out.toString());
        return results;
    }
}
