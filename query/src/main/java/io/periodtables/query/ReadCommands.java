package io.periodtables.query;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/** The {@code range} and {@code latest} commands: a device's readings printed, and drawn with {@code --chart}. */
final class ReadCommands {

    private ReadCommands() {}

    /** Options both commands have. */
    abstract static class ReadCommand implements Callable<Integer> {
        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "Show this help and exit.")
        boolean help;

        @Option(names = "--device", required = true, paramLabel = "ID", description = "The device id.")
        String device;

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
                description = "Also draw the readings: one line per numeric attribute, period boundaries dashed,"
                        + " late readings as red crosses.")
        Path chart;

        /** The job's configuration keys: {@code --key value}, {@code --config file}. */
        @Unmatched
        List<String> configuration = new ArrayList<>();

        final CliOptions.Streams streams;

        ReadCommand(CliOptions.Streams streams) {
            this.streams = streams;
        }

        /** Prints each reading as it comes and, when a chart is wanted, keeps it in {@code kept}. */
        Consumer<StoredReading> output(ReadingOutput.Printer printer, List<StoredReading> kept) {
            return chart == null ? printer : printer.andThen(kept::add);
        }

        void draw(List<StoredReading> readings, Instant from, Instant to, TableNaming naming) {
            if (chart == null) {
                return;
            }
            try {
                Files.writeString(chart, ReadingChart.svg(device, readings, from, to, naming), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write --chart " + chart + ": " + e.getMessage(), e);
            }
            streams.err().println("chart: " + chart);
        }

        static int tableWidth(TableNaming naming, Instant at) {
            return Math.max(
                    naming.periodTableOf(at).length(), naming.lateTable(at).length());
        }
    }

    @Command(
            name = "range",
            sortOptions = false,
            description = "Prints a device's readings of [--from, --to) in time order, from every period table,"
                    + " shard and late table the range touches.")
    static final class Range extends ReadCommand {
        @Option(
                names = "--from",
                required = true,
                paramLabel = "T1",
                description = "Start, included: an ISO-8601 instant (offsets allowed), a date (its start in"
                        + " tables.zone) or epoch milliseconds.")
        String from;

        @Option(
                names = "--to",
                required = true,
                paramLabel = "T2",
                description = "End, excluded; the same forms as --from.")
        String to;

        @Option(
                names = "--archive",
                paramLabel = "PATH",
                description = "The job's archive.path (file:///…, s3://…): periods whose tables were deleted are read"
                        + " from it.")
        String archive;

        @Option(
                names = "--archive-option",
                paramLabel = "KEY=VALUE",
                description = "A setting of Flink's file system for --archive, as in Flink's configuration, e.g."
                        + " s3.endpoint=http://127.0.0.1:9000, s3.path.style.access=true, s3.access-key=…,"
                        + " s3.secret-key=…; repeatable. On AWS none is needed: the S3 file system uses the"
                        + " default credential chain.")
        Map<String, String> archiveOptions = new LinkedHashMap<>();

        Range(CliOptions.Streams streams) {
            super(streams);
        }

        @Override
        public Integer call() {
            PeriodTablesConfig config = CliOptions.configuration(configuration);
            Instant start = CliOptions.instant("--from", from, config.calendar().zone());
            Instant end = CliOptions.instant("--to", to, config.calendar().zone());
            ReadingOutput.Printer printer = format.printer(streams.out(), tableWidth(config.naming(), start));
            List<StoredReading> kept = new ArrayList<>();
            try (ReadingsQuery query = ReadingsQuery.create(config, QuerySettings.defaults())) {
                if (archive != null) {
                    if (!archiveOptions.isEmpty()) {
                        FileSystem.initialize(Configuration.fromMap(archiveOptions), null);
                    }
                    query.withArchive(archive);
                }
                QueryReport report = query.range(device, start, end, output(printer, kept));
                printer.finish();
                streams.out().flush();
                streams.err().print(report.summary());
            }
            draw(kept, start, end, config.naming());
            return 0;
        }
    }

    @Command(name = "latest", sortOptions = false, description = "Prints a device's newest readings, newest first.")
    static final class Latest extends ReadCommand {
        @Option(
                names = "--n",
                paramLabel = "N",
                defaultValue = "1",
                description = "How many, 1-10000. Default: ${DEFAULT-VALUE}.")
        int n;

        Latest(CliOptions.Streams streams) {
            super(streams);
        }

        @Override
        public Integer call() {
            PeriodTablesConfig config = CliOptions.configuration(configuration);
            ReadingOutput.Printer printer = format.printer(streams.out(), tableWidth(config.naming(), Instant.now()));
            try (ReadingsQuery query =
                    ReadingsQuery.create(config, QuerySettings.defaults().withTablesInFlight(2))) {
                QueryResult result = query.latest(device, n);
                result.readings().forEach(printer);
                printer.finish();
                streams.out().flush();
                streams.err().print(result.report().summary());
                List<StoredReading> oldestFirst = new ArrayList<>(result.readings());
                Collections.reverse(oldestFirst);
                if (!oldestFirst.isEmpty()) {
                    draw(
                            oldestFirst,
                            oldestFirst.get(0).eventTime(),
                            oldestFirst.get(oldestFirst.size() - 1).eventTime().plusMillis(1),
                            config.naming());
                }
            }
            return 0;
        }
    }
}
