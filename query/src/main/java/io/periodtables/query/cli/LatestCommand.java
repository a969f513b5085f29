package io.periodtables.query.cli;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.query.LatestResult;
import io.periodtables.query.QueryResult;
import io.periodtables.query.QuerySettings;
import io.periodtables.query.ReadingsQuery;
import io.periodtables.query.StoredReading;
import io.periodtables.query.output.ReadingOutput;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code latest} command: devices' newest readings from the latest table (one consistent
 * {@code GetItem} per {@code --device}, or the fleet with {@code --all}); with {@code --n}, a
 * device's newest {@code N} readings from its period and late tables instead.
 */
@Command(
        name = "latest",
        sortOptions = false,
        description = "Prints devices' newest readings: from the latest table, or with --n a device's newest N"
                + " readings from its period and late tables, newest first.")
public final class LatestCommand extends ReadCommand {

    @ArgGroup(multiplicity = "1")
    Which which;

    /** Some devices, or all. */
    static final class Which {
        @Option(
                names = "--device",
                required = true,
                paramLabel = "ID",
                description = "A device id; repeat the option for more devices.")
        List<String> devices;

        @Option(names = "--all", required = true, description = "Every device in the latest table, sorted by device.")
        boolean all;
    }

    @Option(
            names = "--n",
            paramLabel = "N",
            description = "The newest N readings (1-10000) of each --device, read from the period and late tables"
                    + " (the latest table keeps one).")
    Integer n;

    LatestCommand(CliOptions.Streams streams) {
        super(streams);
    }

    @Override
    public Integer call() {
        checkChart();
        CliOptions.DynamoDbTarget target = CliOptions.dynamoDbConfiguration(configuration);
        PeriodTablesConfig config = target.config();
        if (n == null && chart != null) {
            throw new IllegalArgumentException("--chart draws a device's readings over time: it needs --n");
        }
        if (n != null && which.all) {
            throw new IllegalArgumentException("--n reads the newest readings of each --device: not with --all");
        }
        if (chart != null && which.devices.size() > 1) {
            throw new IllegalArgumentException("--chart draws one device: give one --device");
        }
        target.check(streams.err());
        ReadingOutput.Printer printer = format.printer(streams.out(), tableWidth(config.naming(), Instant.now()));
        try (ReadingsQuery query =
                ReadingsQuery.create(config, QuerySettings.defaults().withTablesInFlight(2))) {
            if (n == null) {
                LatestResult result = which.all ? query.latestOfFleet() : query.latestOf(which.devices);
                result.readings().forEach(printer);
                printer.finish();
                streams.out().flush();
                streams.err().print(result.summary());
                return 0;
            }
            for (String device : which.devices) {
                QueryResult result = query.latest(device, n);
                result.readings().forEach(printer);
                streams.err().print(result.report().summary());
                List<StoredReading> oldestFirst = new ArrayList<>(result.readings());
                Collections.reverse(oldestFirst);
                if (!oldestFirst.isEmpty()) {
                    draw(
                            device,
                            oldestFirst,
                            oldestFirst.get(0).eventTime(),
                            oldestFirst.get(oldestFirst.size() - 1).eventTime().plusMillis(1),
                            config.naming(),
                            result.report().missingPeriodTables());
                }
            }
            printer.finish();
            streams.out().flush();
        }
        return 0;
    }
}
