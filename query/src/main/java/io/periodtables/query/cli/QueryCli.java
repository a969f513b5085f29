package io.periodtables.query.cli;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.query.NotStoredException;
import io.periodtables.query.QueryFailedException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import picocli.AutoComplete.GenerateCompletion;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code query} command line (picocli): {@code range} and {@code latest} print readings,
 * {@code rollup} (and {@code range --every}) a device's rollup buckets ({@code --format
 * json|table|csv}, {@code --chart file.svg}), {@code plan} sizes the
 * tables, {@code cost} prices the real ones; {@code help COMMAND} and {@code --help} on each; {@code
 * generate-completion} prints a bash/zsh completion script. Besides its own options every command takes the job's
 * configuration as {@code --key value} or {@code --config file}, so the tables are found where
 * the job wrote them. Readings go to standard output, the report of what was read to standard
 * error. Exit status 0 on success, 2 for a bad command line or configuration or what is not stored
 * ({@link NotStoredException}), 1 when DynamoDB could not answer.
 */
@PublicEvolving
@Command(
        name = "query",
        synopsisSubcommandLabel = "COMMAND",
        description = "Reads readings and rollups back from period-tables' DynamoDB tables and sizes the tables.",
        subcommands = {
            ReadCommands.Range.class,
            ReadCommands.Rollup.class,
            LatestCommand.class,
            PlanCommand.class,
            CostCommand.class,
            HelpCommand.class,
            GenerateCompletion.class
        },
        footer = {
            "%nEvery command also takes the job's configuration as --key value (e.g. --tables.prefix readings"
                    + " --tables.period PT1H --dynamodb.endpoint http://127.0.0.1:8000) or --config file.properties.",
            "%nExit status: 0 done, 2 bad command line or configuration, or not stored (no rollups of that range or"
                    + " grain, no latest table), 1 DynamoDB could not answer."
        })
public final class QueryCli implements Runnable {
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Spec
    CommandSpec spec;

    private QueryCli() {}

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing a command: range, rollup, latest, plan or cost");
    }

    public static void main(String[] args) {
        // Hadoop's S3A (an s3:// --archive) brings AWS SDK v1, which prints a stack trace to announce its end of
        // support.
        System.setProperty("aws.java.v1.disableDeprecationAnnouncement", "true");
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command, printing to {@code out} and {@code err}; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = commandLine(out, err);
        int status = cli.execute(args);
        out.flush();
        err.flush();
        return status;
    }

    /** The command line with its commands, printing to {@code out} and {@code err}. */
    static CommandLine commandLine(PrintStream out, PrintStream err) {
        CliOptions.Streams streams = new CliOptions.Streams(out, err);
        CommandLine cli = new CommandLine(new QueryCli(), new Factory(streams))
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler((e, command, parsed) -> {
                    if (e instanceof QueryFailedException || e instanceof UncheckedIOException) {
                        err.println(e.getMessage());
                        return 1;
                    }
                    if (e instanceof ConfigException c && c.getMessage().startsWith("Unknown configuration key")) {
                        err.println(unknownOption(c.key(), command));
                        return 2;
                    }
                    if (e instanceof ConfigException || e instanceof IllegalArgumentException) {
                        err.println(e.getMessage());
                        return 2;
                    }
                    throw e;
                });
        cli.registerConverter(Path.class, CliOptions::where);
        cli.getSubcommands()
                .get("generate-completion")
                .getCommandSpec()
                .usageMessage()
                .hidden(true);
        cli.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help") && !name.equals("generate-completion")) {
                sub.getCommandSpec().usageMessage().footer(CONFIGURATION_FOOTER);
            }
        });
        return cli;
    }

    private static final String CONFIGURATION_FOOTER = "%nAlso the job's configuration, so that the tables are found"
            + " where the job wrote them: --config FILE.properties (./run-local writes .flink-local/run.properties)"
            + " and --KEY VALUE for any key of docs/configuration.md, e.g. --tables.prefix readings,"
            + " --dynamodb.endpoint http://127.0.0.1:8000, --aws.region eu-west-1.";

    /** One line for an option neither the command nor the configuration has, with the nearest of both. */
    private static String unknownOption(String name, CommandLine command) {
        List<String> candidates =
                new ArrayList<>(command.getCommandSpec().optionsMap().keySet());
        ConfigKeys.all().forEach(k -> candidates.add("--" + k.name()));
        candidates.add("--config");
        String given = "--" + name;
        return "Unknown option '" + given + "'"
                + ConfigLoader.nearest(given, candidates)
                        .map(best -> " (did you mean '" + best + "'?)")
                        .orElse("")
                + "; ./query/run-query " + command.getCommandName() + " --help lists its options";
    }

    /** Creates the commands with the streams they print to. */
    private static final class Factory implements CommandLine.IFactory {
        private final CliOptions.Streams streams;

        Factory(CliOptions.Streams streams) {
            this.streams = streams;
        }

        @Override
        public <K> K create(Class<K> type) throws Exception {
            if (type == ReadCommands.Range.class) {
                return type.cast(new ReadCommands.Range(streams));
            }
            if (type == ReadCommands.Rollup.class) {
                return type.cast(new ReadCommands.Rollup(streams));
            }
            if (type == LatestCommand.class) {
                return type.cast(new LatestCommand(streams));
            }
            if (type == PlanCommand.class) {
                return type.cast(new PlanCommand(streams));
            }
            if (type == CostCommand.class) {
                return type.cast(new CostCommand(streams));
            }
            return CommandLine.defaultFactory().create(type);
        }
    }
}
