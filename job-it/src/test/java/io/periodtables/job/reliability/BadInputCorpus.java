package io.periodtables.job.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The bad-input corpus: the files of {@code src/test/resources/bad-input/} with their expected
 * outcomes from {@code MANIFEST.tsv}, plus the records too large to keep as files (a 420 KB
 * reading, a 1 MB reading, 1 MB of broken JSON, a 300 KB reading that still fits), made here.
 */
final class BadInputCorpus {
    static final String OK = "ok";
    static final String ANY_REJECTION = "rejected";
    static final int ONE_MB = 1024 * 1024;

    /** One record of the corpus and what must become of each reading in it. */
    record Entry(String name, byte[] data, List<String> outcomes) {
        @Override
        public String toString() {
            return name;
        }
    }

    private BadInputCorpus() {}

    /** Every entry: the manifest's files in manifest order, then the generated records. */
    static List<Entry> load() {
        Path dir = directory();
        List<Entry> entries = new ArrayList<>();
        Set<String> listed = new TreeSet<>();
        for (String line : lines(dir.resolve("MANIFEST.tsv"))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] columns = line.split("\t");
            if (columns.length != 2) {
                throw new IllegalStateException("MANIFEST.tsv: expected 'file<TAB>outcomes', got: " + line);
            }
            listed.add(columns[0]);
            entries.add(new Entry(columns[0], read(dir.resolve(columns[0])), Arrays.asList(columns[1].split(","))));
        }
        Set<String> files;
        try (Stream<Path> paths = Files.list(dir)) {
            files = paths.map(p -> p.getFileName().toString())
                    .filter(n -> !n.equals("MANIFEST.tsv"))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!files.equals(listed)) {
            Set<String> unlisted = new TreeSet<>(files);
            unlisted.removeAll(listed);
            listed.removeAll(files);
            throw new IllegalStateException("bad-input files and MANIFEST.tsv disagree: not in the manifest " + unlisted
                    + ", not a file " + listed);
        }
        entries.addAll(generated());
        return entries;
    }

    private static List<Entry> generated() {
        String reading = "{\"deviceId\":\"%s\",\"timestamp\":\"2025-06-01T08:20:00Z\",\"meta\":\"%s\"}";
        return List.of(
                new Entry(
                        "item-too-large__metadata-of-420-KB",
                        utf8(String.format(reading, "big-420k", "m".repeat(420 * 1024))),
                        List.of("item-too-large")),
                new Entry(
                        "item-too-large__reading-of-1-MB",
                        utf8(String.format(
                                reading,
                                "big-1m",
                                "x"
                                        .repeat(ONE_MB
                                                - String.format(reading, "big-1m", "")
                                                        .length()))),
                        List.of("item-too-large")),
                new Entry("invalid-json__broken-record-of-1-MB", brokenMegabyte(), List.of("invalid-json")),
                new Entry(
                        "ok__reading-of-300-KB",
                        utf8(String.format(reading, "big-300k", "k".repeat(300 * 1024))),
                        List.of(OK)));
    }

    /**
     * 1 MB of JSON that never ends (an unterminated string of two-byte characters, so the 64 KB
     * cut of the rejected table falls inside a character and must step back to its start).
     */
    private static byte[] brokenMegabyte() {
        StringBuilder text =
                new StringBuilder("{\"deviceId\":\"big-broken\",\"timestamp\":\"2025-06-01T08:20:00Z\",\"meta\":\"");
        if (text.length() % 2 == 0) {
            text.append('x'); // an odd ASCII prefix puts byte 65,536 in the middle of an 'é'
        }
        text.append("é".repeat((ONE_MB - text.length()) / 2)).append('x');
        return utf8(text.toString());
    }

    private static Path directory() {
        URL url = BadInputCorpus.class.getResource("/bad-input/MANIFEST.tsv");
        if (url == null) {
            throw new IllegalStateException("bad-input/MANIFEST.tsv is not on the test classpath");
        }
        try {
            return Path.of(url.toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
