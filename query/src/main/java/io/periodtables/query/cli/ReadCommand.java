package io.periodtables.query.cli;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.query.StoredReading;
import io.periodtables.query.output.ReadingChart;
import io.periodtables.query.output.ReadingOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * What every reading command ({@code range}, {@code rollup}, {@code latest}) has: its options
 * {@code --format}, {@code --chart} and the configuration keys, and drawing the chart.
 */
abstract class ReadCommand implements Callable<Integer> {
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            defaultValue = "json",
            description = "json (one object per line), table or csv (one column per attribute)."
                    + " Default: ${DEFAULT-VALUE}.")
    ReadingOutput format;

    @Option(
            names = "--chart",
            paramLabel = "FILE.svg",
            description = "Also draw them, as SVG (the name must end in .svg): readings as one line per numeric"
                    + " attribute, period boundaries dashed, late readings as red crosses; rollup buckets as the"
                    + " min-max band and the average line of each field; gaps left empty.")
    Path chart;

    /** The job's configuration keys: {@code --key value}, {@code --config file}. */
    @Unmatched
    List<String> configuration = new ArrayList<>();

    final CliOptions.Streams streams;

    ReadCommand(CliOptions.Streams streams) {
        this.streams = streams;
    }

    /**
     * Refuses a {@code --chart} file that does not end in {@code .svg}, before anything is read
     * or printed: the chart is written as SVG whatever the name, and a {@code .png} of SVG text
     * opens as a broken image.
     */
    void checkChart() {
        if (chart != null
                && !chart.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg")) {
            throw new IllegalArgumentException("--chart " + chart.getFileName()
                    + ": only SVG is written; give a file name ending in .svg (convert it with e.g. rsvg-convert)");
        }
    }

    /** Prints each reading as it comes and, when a chart is wanted, keeps it in {@code kept}. */
    Consumer<StoredReading> output(ReadingOutput.Printer printer, List<StoredReading> kept) {
        return chart == null ? printer : printer.andThen(kept::add);
    }

    void draw(
            String device,
            List<StoredReading> readings,
            Instant from,
            Instant to,
            TableNaming naming,
            List<String> missingTables) {
        if (chart != null) {
            write(ReadingChart.svg(device, readings, from, to, naming, periods(naming, missingTables)));
        }
    }

    /** The periods of {@code tables} (period or rollups tables), for the chart to shade. */
    static List<Period> periods(TableNaming naming, List<String> tables) {
        return tables.stream()
                .flatMap(t -> naming.parse(t).map(TableNaming.TableRef::period).stream())
                .toList();
    }

    void write(String svg) {
        try {
            Files.writeString(chart, svg, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write --chart " + chart + ": " + e.getMessage(), e);
        }
        streams.err().println("chart: " + chart);
    }

    static int tableWidth(TableNaming naming, Instant at) {
        return Math.max(naming.periodTableOf(at).length(), naming.lateTable(at).length());
    }
}
