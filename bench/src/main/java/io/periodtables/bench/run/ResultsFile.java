package io.periodtables.bench.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code bench/RESULTS.md}: a header with the machine facts, then one section per benchmark. Each
 * benchmark writes its section to {@code bench/target/results/<n>-<name>.md}, so one benchmark
 * can be run again alone; the file is assembled from all sections present and the ones it
 * already holds. A section can also be spliced into the RESULTS.md there is
 * ({@link #spliceSection}), keeping everything else in it.
 */
final class ResultsFile {

    /** {@code <n>-<name>.md} by its number n, so section 11 comes after section 8. */
    static final Comparator<Path> IN_SECTION_ORDER = Comparator.comparingInt(
                    (Path p) -> sectionNumber(p.getFileName().toString()))
            .thenComparing(p -> p.getFileName().toString());

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

    /**
     * Writes RESULTS.md from the header, the numbered sections of the RESULTS.md there is, and
     * every section file in section-number order: a file replaces the section of the same heading
     * in its place, or is appended (so a run of some benchmarks after {@code mvn clean} loses no
     * other section).
     */
    Path assemble(String header) throws IOException {
        List<Path> sections = new ArrayList<>();
        if (Files.isDirectory(sectionsDir())) {
            try (Stream<Path> files = Files.list(sectionsDir())) {
                files.filter(p -> p.getFileName().toString().endsWith(".md"))
                        .sorted(IN_SECTION_ORDER)
                        .forEach(sections::add);
            }
        }
        Path results = benchDir.resolve("RESULTS.md");
        String document = header;
        if (Files.isRegularFile(results)) {
            for (String kept : numberedSections(Files.readString(results))) {
                document = spliced(document, kept);
            }
        }
        for (Path section : sections) {
            document = spliced(document, Files.readString(section));
        }
        Files.writeString(results, document);
        return results;
    }

    /** The {@code ## <n>.} sections of {@code document}, each through the line before the next {@code ## }. */
    private static List<String> numberedSections(String document) {
        List<String> sections = new ArrayList<>();
        String[] parts = document.split("(?m)^(?=## )");
        for (String part : parts) {
            if (part.startsWith("## ") && part.length() > 3 && Character.isDigit(part.charAt(3))) {
                sections.add(part.endsWith("\n\n") ? part.substring(0, part.length() - 1) : part);
            }
        }
        return sections;
    }

    /**
     * Puts section {@code fileName} (written before with {@link #writeSection}) into RESULTS.md as
     * it is: replaces the section with the same {@code ## } heading, or appends it; the rest of the
     * file is kept as it is.
     */
    Path spliceSection(String fileName) throws IOException {
        Path results = benchDir.resolve("RESULTS.md");
        String existing = Files.isRegularFile(results) ? Files.readString(results) : "";
        Files.writeString(
                results, spliced(existing, Files.readString(sectionsDir().resolve(fileName))));
        return results;
    }

    private static int sectionNumber(String fileName) {
        int dash = fileName.indexOf('-');
        try {
            return Integer.parseInt(fileName.substring(0, Math.max(dash, 0)));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    /** {@code document} with {@code section} in place of the section of the same first line, or at its end. */
    static String spliced(String document, String section) {
        String heading = section.lines().findFirst().orElseThrow(() -> new IllegalArgumentException("empty section"));
        int start = document.startsWith(heading + "\n") ? 0 : document.indexOf("\n" + heading + "\n");
        if (start < 0) {
            String base = document.isEmpty() || document.endsWith("\n") ? document : document + "\n";
            return base + (base.isEmpty() ? "" : "\n") + section;
        }
        int from = start == 0 ? 0 : start + 1;
        int next = document.indexOf("\n## ", from + heading.length());
        String rest = next < 0 ? "" : document.substring(next + 1);
        return document.substring(0, from) + section + (rest.isEmpty() ? "" : "\n" + rest);
    }
}
