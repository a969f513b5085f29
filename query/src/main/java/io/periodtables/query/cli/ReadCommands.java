package io.periodtables.query.cli;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.Rollups;
import io.periodtables.query.QueryReport;
import io.periodtables.query.QuerySettings;
import io.periodtables.query.ReadingsQuery;
import io.periodtables.query.RollupResult;
import io.periodtables.query.StoredReading;
import io.periodtables.query.output.BucketOutput;
import io.periodtables.query.output.ReadingOutput;
import io.periodtables.query.output.RollupChart;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code range} and {@code rollup} commands: a device's readings, or its rollup buckets, of a
 * time range printed, and drawn with {@code --chart}.
 */
public final class ReadCommands {

    private ReadCommands() {}

    /** A device and a time range; rollup buckets of a grain. */
    abstract static class TimeRangeCommand extends ReadCommand {
        @Option(names = "--device", required = true, paramLabel = "ID", description = "The device id.")
        String device;

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

        @Option(names = "--field", paramLabel = "NAME", description = "With rollups: only this field's statistics.")
        String field;

        TimeRangeCommand(CliOptions.Streams streams) {
            super(streams);
        }

        /** Prints the device's buckets of {@code grain} that start in {@code [start, end)}. */
        int printRollups(PeriodTablesConfig config, Instant start, Instant end, Duration grain) {
            RollupResult result;
            try (ReadingsQuery query = ReadingsQuery.create(config, QuerySettings.defaults())) {
                result = query.rollups(device, start, end, grain);
            }
            List<Rollups.Bucket> buckets = field == null
                    ? result.buckets()
                    : result.buckets().stream().map(this::onlyField).toList();
            BucketOutput.Printer printer = BucketOutput.printer(format, streams.out(), device);
            buckets.forEach(printer);
            printer.finish();
            streams.out().flush();
            streams.err().print(result.summary());
            if (field != null && buckets.stream().allMatch(b -> b.fields().isEmpty())) {
                Set<String> fields = new TreeSet<>();
                result.buckets().forEach(b -> fields.addAll(b.fields().keySet()));
                streams.err()
                        .println("note: no bucket holds --field " + field + " (fields: "
                                + (fields.isEmpty() ? "none" : String.join(", ", fields)) + ")");
            }
            if (chart != null) {
                write(RollupChart.svg(
                        device,
                        grain,
                        buckets,
                        start,
                        end,
                        config.calendar().zone(),
                        periods(config.naming(), result.missingTables())));
            }
            return 0;
        }

        private Rollups.Bucket onlyField(Rollups.Bucket bucket) {
            Rollups.FieldStats stats = bucket.fields().get(field);
            return new Rollups.Bucket(
                    bucket.device(),
                    bucket.grain(),
                    bucket.startMillis(),
                    bucket.readings(),
                    stats == null ? Map.of() : Map.of(field, stats));
        }
    }

    @Command(
            name = "range",
            sortOptions = false,
            description = "Prints a device's readings of [--from, --to) in time order, from every period table,"
                    + " shard and late table the range touches; with --every, its rollup buckets instead.")
    static final class Range extends TimeRangeCommand {
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

        @Option(
                names = "--every",
                paramLabel = "GRAIN",
                converter = CliOptions.IsoDuration.class,
                description = "Answer from the rollups tables: the buckets of this grain (one of the job's"
                        + " rollups.every), as the rollup command prints them.")
        Duration every;

        Range(CliOptions.Streams streams) {
            super(streams);
        }

        @Override
        public Integer call() {
            checkChart();
            String archivePath = archive == null ? null : CliOptions.archive(archive, archiveOptions);
            CliOptions.DynamoDbTarget target = CliOptions.dynamoDbConfiguration(configuration);
            PeriodTablesConfig config = target.config();
            Instant start = CliOptions.instant("--from", from, config.calendar().zone());
            Instant end = CliOptions.instant("--to", to, config.calendar().zone());
            if (every != null && archive != null) {
                throw new IllegalArgumentException("--archive holds readings, not rollups: drop it or --every");
            }
            if (every == null && field != null) {
                throw new IllegalArgumentException("--field selects a rollup field: it needs --every");
            }
            target.check(streams.err());
            if (every != null) {
                return printRollups(config, start, end, every);
            }
            ReadingOutput.Printer printer = format.printer(streams.out(), tableWidth(config.naming(), start));
            List<StoredReading> kept = new ArrayList<>();
            QueryReport report;
            try (ReadingsQuery query = ReadingsQuery.create(config, QuerySettings.defaults())) {
                if (archivePath != null) {
                    query.withArchive(archivePath);
                }
                report = query.range(device, start, end, output(printer, kept));
                printer.finish();
                streams.out().flush();
                streams.err().print(report.summary());
            }
            draw(device, kept, start, end, config.naming(), report.missingPeriodTables());
            return 0;
        }
    }

    @Command(
            name = "rollup",
            sortOptions = false,
            description = "Prints a device's rollup buckets of one grain that start in [--from, --to), in time order,"
                    + " from the rollups tables of the periods the range touches: per bucket its readings and per"
                    + " field count, min, max, avg, first and last.")
    static final class Rollup extends TimeRangeCommand {
        @Option(
                names = "--every",
                required = true,
                paramLabel = "GRAIN",
                converter = CliOptions.IsoDuration.class,
                description = "The grain, one of the job's rollups.every, e.g. PT1H.")
        Duration every;

        Rollup(CliOptions.Streams streams) {
            super(streams);
        }

        @Override
        public Integer call() {
            checkChart();
            CliOptions.DynamoDbTarget target = CliOptions.dynamoDbConfiguration(configuration);
            PeriodTablesConfig config = target.config();
            Instant start = CliOptions.instant("--from", from, config.calendar().zone());
            Instant end = CliOptions.instant("--to", to, config.calendar().zone());
            target.check(streams.err());
            return printRollups(config, start, end, every);
        }
    }
}
