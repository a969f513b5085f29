package io.periodtables.local;

import io.periodtables.core.config.ConfigKey;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming.TableRef;
import io.periodtables.emulators.S3Emulator;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.query.cli.QueryCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The summary's last lines: the {@code query} command that reads one device of the run back (its
 * configuration written to {@link #RUN_CONFIG}), the chart it draws and its rollups.
 */
final class SampleQueries {
    /** The run's configuration for the {@code query} command: the keys it set, secrets left out. */
    static final Path RUN_CONFIG = LocalRunner.WORK_DIR.resolve("run.properties");

    private final PeriodTablesConfig config;
    /** The S3 emulator that holds the archive, or null. */
    private final S3Emulator archiveS3;

    SampleQueries(PeriodTablesConfig config, S3Emulator archiveS3) {
        this.config = config;
        this.archiveS3 = archiveS3;
    }

    /** The sample device's query command, its chart and its rollups, as the summary's last lines. */
    String print(List<TableRef> periods) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
        List<String> query = queryArgs(periods);
        out.println("One device: ./query/run-query " + String.join(" ", query));
        chart(query, out);
        RollupSummary.print(config, query, out);
        return text.toString(StandardCharsets.UTF_8);
    }

    /** Draws the sample device with the query CLI itself, while dynalite still runs. */
    private static void chart(List<String> query, PrintStream out) {
        Path svg = Path.of(query.get(query.indexOf("--chart") + 1)).toAbsolutePath();
        List<String> args = new ArrayList<>(query);
        args.set(args.indexOf("--chart") + 1, svg.toString());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = QueryCli.run(
                args.toArray(String[]::new),
                new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        out.println(
                status == 0
                        ? "Its chart: " + svg
                        : "No chart: "
                                + err.toString(StandardCharsets.UTF_8)
                                        .lines()
                                        .findFirst()
                                        .orElse("exit status " + status));
    }

    private List<String> queryArgs(List<TableRef> periods) {
        Period first = periods.get(0).period();
        Period last = periods.get(periods.size() - 1).period();
        // The fleet's devices: the generator's, or the local run's stream that the fleet is put into.
        boolean generator = config.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.GENERATOR
                || LocalKinesis.STREAM_ARN.equals(config.get(ConfigKeys.KINESIS_STREAM_ARN));
        String device = generator
                ? FleetGenerator.deviceId(Math.min(7, config.get(ConfigKeys.GENERATOR_DEVICES) - 1))
                : "<device id>";
        writeRunConfig();
        List<String> args = new ArrayList<>(List.of(
                "range",
                "--device",
                device,
                "--from",
                first.start().toString(),
                "--to",
                last.end().toString(),
                "--config",
                RUN_CONFIG.toString()));
        config.find(ConfigKeys.ARCHIVE_PATH).ifPresent(path -> args.addAll(List.of("--archive", path)));
        if (archiveS3 != null) {
            LocalS3.queryOptions(archiveS3)
                    .forEach((key, value) -> args.addAll(List.of("--archive-option", key + "=" + value)));
        }
        // the printed command draws where the summary's own chart is, not where the user stands
        args.addAll(List.of(
                "--format",
                "table",
                "--chart",
                LocalRunner.WORK_DIR.resolve(device + ".svg").toString()));
        return args;
    }

    private void writeRunConfig() {
        Properties keys = new Properties();
        for (ConfigKey<?> key : ConfigKeys.all()) {
            String value = config.asText().get(key.name());
            if (value != null && !value.equals(key.defaultValue()) && !PeriodTablesConfig.isSecret(key.name())) {
                keys.setProperty(key.name(), value);
            }
        }
        try (Writer out = Files.newBufferedWriter(RUN_CONFIG, StandardCharsets.UTF_8)) {
            keys.store(out, "the configuration of the last ./run-local, for ./query/run-query --config");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + RUN_CONFIG, e);
        }
    }
}
