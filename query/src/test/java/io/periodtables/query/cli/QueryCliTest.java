package io.periodtables.query.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueryCliTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return QueryCli.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** A stopped local run's endpoint: nothing printed but one line naming it and what to do. */
    @Test
    void aDynamoDbThatDoesNotAnswerIsNamedBeforeAnythingIsPrinted() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + port;

        for (String[] command : new String[][] {
            {"range", "--device", "d1", "--from", "2026-11-22", "--to", "2026-11-23", "--format", "table"},
            {"rollup", "--device", "d1", "--from", "2026-11-22", "--to", "2026-11-23", "--every", "PT1M"},
            {"latest", "--all", "--format", "table"},
            {"cost"}
        }) {
            out.reset();
            err.reset();
            String[] args = Arrays.copyOf(command, command.length + 2);
            args[command.length] = "--dynamodb.endpoint";
            args[command.length + 1] = endpoint;

            assertThat(run(args)).as(command[0]).isEqualTo(1);
            assertThat(out()).as(command[0]).isEmpty();
            assertThat(err().strip())
                    .as(command[0])
                    .startsWith("DynamoDB at " + endpoint + " does not answer (")
                    .endsWith("./run-local --serve serves its data again and points .flink-local/run.properties at it")
                    .doesNotContain("\n");
        }
    }

    /**
     * docs/query.md's first examples, without --config, where no local run's configuration is:
     * AWS in us-east-1 without credentials is one line naming it and --config
     * .flink-local/run.properties, not the SDK's list of every credentials provider it tried.
     */
    @Test
    void withoutAnEndpointOrCredentialsTheQueryNamesTheRegionAndTheLocalRunsConfiguration(@TempDir Path here) {
        for (String variable : new String[] {
            "AWS_ACCESS_KEY_ID",
            "AWS_PROFILE",
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"
        }) {
            assumeThat(System.getenv(variable)).as(variable).isNull();
        }
        Map<String, String> properties = Map.of(
                "aws.sharedCredentialsFile",
                here.resolve("no-credentials").toString(),
                "aws.configFile",
                here.resolve("no-config").toString(),
                "aws.disableEc2Metadata",
                "true",
                CliOptions.CWD_PROPERTY,
                here.toString());
        properties.forEach(System::setProperty);
        try {
            for (String[] command : new String[][] {
                {"range", "--device", "dev-7", "--from", "2026-11-22T10:00:00Z", "--to", "2026-11-22T13:00:00Z"},
                {"rollup", "--device", "dev-7", "--from", "2026-11-22", "--to", "2026-11-23", "--every", "PT1H"},
                {"latest", "--device", "dev-7", "--format", "table"},
                {"cost"}
            }) {
                out.reset();
                err.reset();

                assertThat(run(command)).as(command[0]).isEqualTo(1);
                assertThat(out()).as(command[0]).isEmpty();
                assertThat(err().strip())
                        .as(command[0])
                        .startsWith("No AWS credentials for DynamoDB in us-east-1")
                        .contains("--config .flink-local/run.properties")
                        .doesNotContain("\n")
                        .hasSizeLessThan(400);
            }
        } finally {
            properties.keySet().forEach(System::clearProperty);
        }
    }

    /** Where a local run's .flink-local/run.properties is, a query without --config reads that run's tables. */
    @Test
    void withoutConfigTheLocalRunsConfigurationWhereTheUserStandsIsUsed(@TempDir Path here) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + port;
        Files.createDirectories(here.resolve(".flink-local"));
        Files.writeString(
                here.resolve(".flink-local/run.properties"),
                "dynamodb.endpoint=" + endpoint.replace(":", "\\:") + "\ntables.period=PT1M\n");
        System.setProperty(CliOptions.CWD_PROPERTY, here.toString());
        try {
            assertThat(run("range", "--device", "d1", "--from", "2026-11-22", "--to", "2026-11-23"))
                    .isEqualTo(1);
            // which file it read comes first, also when its DynamoDB does not answer
            assertThat(err().strip().lines())
                    .hasSize(2)
                    .satisfies(
                            lines -> assertThat(lines.get(0))
                                    .startsWith("configuration: " + here.resolve(".flink-local/run.properties")),
                            lines -> assertThat(lines.get(1))
                                    .startsWith("DynamoDB at " + endpoint + " does not answer ("));

            // the command line saying where DynamoDB is wins over the file
            err.reset();
            int other;
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                other = free.getLocalPort();
            }
            assertThat(run("latest", "--all", "--dynamodb.endpoint", "http://127.0.0.1:" + other))
                    .isEqualTo(1);
            assertThat(err()).startsWith("DynamoDB at http://127.0.0.1:" + other + " does not answer (");
        } finally {
            System.clearProperty(CliOptions.CWD_PROPERTY);
        }
    }

    /** Only SVG is written: any other --chart name is one line, exit 2, before DynamoDB is even asked. */
    @Test
    void aChartThatIsNotSvgIsRefusedBeforeAnythingElse() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        for (String[] command : new String[][] {
            {"range", "--device", "d1", "--from", "2026-11-22", "--to", "2026-11-23", "--chart", "d1.png"},
            {
                "rollup",
                "--device",
                "d1",
                "--from",
                "2026-11-22",
                "--to",
                "2026-11-23",
                "--every",
                "PT1M",
                "--chart",
                "d1.PNG"
            },
            {"latest", "--device", "d1", "--n", "10", "--chart", "d1.svg.pdf"}
        }) {
            out.reset();
            err.reset();
            String[] args = Arrays.copyOf(command, command.length + 2);
            args[command.length] = "--dynamodb.endpoint";
            args[command.length + 1] = "http://127.0.0.1:" + port;

            assertThat(run(args)).as(command[0]).isEqualTo(2);
            assertThat(out()).as(command[0]).isEmpty();
            assertThat(err().strip())
                    .as(command[0])
                    .startsWith("--chart " + command[command.length - 1] + ": only SVG is written;")
                    .doesNotContain("\n");
        }
    }

    @Test
    void everyCommandsHelpNamesItsOptionsAndTheConfiguration() {
        for (String command : new String[] {"range", "rollup", "latest", "plan", "cost"}) {
            out.reset();
            assertThat(run(command, "--help")).as(command).isZero();
            assertThat(out())
                    .as(command)
                    .contains("--help", "--config FILE.properties", "--dynamodb.endpoint http://127.0.0.1:8000");
        }
    }

    @Test
    void theConfigurationPageListsEveryOptionOfEveryCommand() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "configuration.md"));
        String start = "<!-- command-options:start (QueryCliTest keeps it in step with the commands) -->\n";
        String table =
                page.substring(page.indexOf(start) + start.length(), page.indexOf("<!-- command-options:end -->"));
        StringBuilder expected = new StringBuilder("| command | options |\n|---|---|\n");
        QueryCli.commandLine(System.out, System.err).getSubcommands().forEach((name, command) -> {
            if (!name.equals("help") && !name.equals("generate-completion")) {
                expected.append("| `").append(name).append("` | ");
                expected.append(String.join(
                        ", ",
                        command.getCommandSpec().options().stream()
                                .map(o -> "`" + o.longestName() + "`")
                                .toList()));
                expected.append(" |\n");
            }
        });
        assertThat(table).isEqualTo(expected.toString());
    }

    @Test
    void aMistypedOptionGetsTheNearestOneOfTheCommandOrTheConfiguration() {
        assertThat(run("range", "--device", "d1", "--from", "2026-11-22", "--to", "2026-11-23", "--fromat", "table"))
                .isEqualTo(2);
        assertThat(err().strip())
                .isEqualTo("Unknown option '--fromat' (did you mean '--format'?); ./query/run-query range --help"
                        + " lists its options");
        err.reset();
        assertThat(run("plan", "--events-per-second", "600", "--item-bytes", "100", "--tables.perod", "PT1H"))
                .isEqualTo(2);
        assertThat(err().strip()).startsWith("Unknown option '--tables.perod' (did you mean '--tables.period'?)");
    }

    /** ./query/run-query runs Java in the repository and says where the user stands. */
    @Test
    void relativePathsResolveWhereTheUserStands(@TempDir Path here) throws Exception {
        Files.writeString(
                here.resolve("reading.json"),
                "{\"deviceId\":\"d1\",\"timestamp\":\"2026-11-22T13:45:01Z\",\"t\":21.5}");
        Files.writeString(here.resolve("job.properties"), "tables.prefix=fromfile\n");
        System.setProperty(CliOptions.CWD_PROPERTY, here.toString());
        try {
            assertThat(run(
                            "plan",
                            "--events-per-second",
                            "100",
                            "--sample",
                            "reading.json",
                            "--config",
                            "job.properties",
                            "--emit-config"))
                    .as(err())
                    .isZero();
        } finally {
            System.clearProperty(CliOptions.CWD_PROPERTY);
        }
    }

    /** What the plan recommends is what --emit-config emits: billing and the closed tables' class. */
    @Test
    void planRecommendsOneConfigurationAndEmitsExactlyIt() throws Exception {
        assertThat(run(
                        "plan",
                        "--events-per-second",
                        "10000",
                        "--peak-to-mean",
                        "3",
                        "--item-bytes",
                        "180",
                        "--retention",
                        "P30D",
                        "--emit-config"))
                .isZero();
        List<String> recommended = err().lines()
                .filter(l -> l.startsWith("recommended") || l.startsWith("cheapest"))
                .toList();
        assertThat(recommended).hasSize(1);
        Properties emitted = new Properties();
        emitted.load(new StringReader(out()));
        assertThat(recommended.get(0))
                .contains("tables.billing=" + emitted.getProperty("tables.billing"))
                .contains("tables.class.closed=" + emitted.getProperty("tables.class.closed"));
    }

    /** The emitted current capacity is the one the plan's own sized line names, with the target's headroom. */
    @Test
    void planEmitsTheSizedCurrentCapacity() throws Exception {
        assertThat(run("plan", "--events-per-second", "600", "--item-bytes", "180", "--emit-config"))
                .isZero();
        Matcher sized =
                Pattern.compile("(?m)^  sized +\\S+ +(\\d+/\\d+) = ceil").matcher(err());
        assertThat(sized.find()).as(err()).isTrue();
        assertThat(sized.group(1)).isEqualTo("858/300");
        Properties emitted = new Properties();
        emitted.load(new StringReader(out()));
        assertThat(emitted.getProperty("tables.capacity.current")).isEqualTo(sized.group(1));
    }

    /**
     * The plan prices every table the job writes, from the fleet's shape: 10,000 devices every
     * 10 s with rollups, one line per table naming it, the defaults it took printed, and the
     * other tables' writes in the totals the recommendation compares.
     */
    @Test
    void planPricesEveryTableTheJobWritesFromTheFleetsShape() {
        assertThat(run(
                        "plan",
                        "--devices",
                        "10000",
                        "--reading-interval",
                        "PT10S",
                        "--item-bytes",
                        "180",
                        "--rollups.every",
                        "PT1M,PT1H"))
                .as(err())
                .isZero();

        double month = 730 * 3600 / 1e6 * 0.625 * 1_000; // a write unit per reading at 1,000 readings/s
        double latest = month / 6;
        double rollups = month * (10.0 / 60 + 10.0 / 3600);
        assertThat(out())
                .contains("10,000 devices, a reading every PT10S each (1,000 readings/s); checkpoints every PT1M")
                .contains("defaults --checkpoint-interval PT1M (MSF's), --parallelism 1")
                .contains("latest.interval PT1M, rollups.every PT1M,PT1H")
                .containsPattern("writes/reading +1\\.336 = period 1\\.000 \\+ latest 0\\.167 \\+ rollups 0\\.169")
                .contains(String.format(Locale.ROOT, "  latest        $%,.2f/month  readings_latest: ", latest))
                .contains(
                        String.format(Locale.ROOT, "  rollups       $%,.2f/month  readings_rollups_<label>: ", rollups))
                .contains("  late          $0.00/month  readings_late_<yyyy-MM>")
                .containsPattern(
                        "bookkeeping +\\$0\\.\\d\\d/month  readings_writers: a put per sink subtask \\(3 sinks");
        Matcher autoScaling = Pattern.compile(
                        "auto scaling \\(lower bound\\), Standard +\\$([0-9,.]+)/month  \\(period tables \\$([0-9,.]+) \\+"
                                + " the other tables' writes \\$([0-9,.]+)\\)")
                .matcher(out());
        assertThat(autoScaling.find()).as(out()).isTrue();
        assertThat(amount(autoScaling.group(1)))
                .isCloseTo(amount(autoScaling.group(2)) + amount(autoScaling.group(3)), within(0.011));
        assertThat(amount(autoScaling.group(3))).isCloseTo(latest + rollups, within(0.5));
    }

    private static double amount(String text) {
        return Double.parseDouble(text.replace(",", ""));
    }

    @Test
    void planPrintsTheSeedFigures() {
        assertThat(run("plan", "--events-per-second", "600", "--item-bytes", "180", "--retention", "P30D"))
                .isZero();

        assertThat(out())
                .contains("1 WCU per write")
                .contains("25.7 h")
                .containsPattern("period +P1D")
                .contains("current 600/300");
    }

    @Test
    void planEmitsConfigurationThatTheJobLoads() throws Exception {
        assertThat(run(
                        "plan",
                        "--events-per-second",
                        "5000",
                        "--peak",
                        "6000",
                        "--item-bytes=180",
                        "--retention",
                        "P7D",
                        "--emit-config"))
                .isZero();
        assertThat(out()).contains("tables.retention=P7D");

        Properties emitted = new Properties();
        emitted.load(new StringReader(out()));
        Map<String, String> keys = new HashMap<>();
        emitted.stringPropertyNames().forEach(k -> keys.put(k, emitted.getProperty(k)));
        PeriodTablesConfig config = ConfigLoader.fromMap(keys, false);
        assertThat(config.get(TableKeys.TABLES_SHARDS)).isEqualTo(6);
        assertThat(config.get(TableKeys.TABLES_PERIOD).toString()).isEqualTo("PT3H");
        assertThat(err()).contains("shards").contains("monthly cost");
    }

    @Test
    void planMeasuresASampleReadingWithTheConfiguredFields(@TempDir Path dir) throws Exception {
        Path sample = dir.resolve("reading.json");
        Files.writeString(sample, "{\"id\":\"dev-1\",\"at\":\"2026-11-22T13:45:01Z\",\"temp\":21.5}");

        assertThat(run(
                        "plan",
                        "--events-per-second",
                        "600",
                        "--sample",
                        sample.toString(),
                        "--input.device-field",
                        "id",
                        "--input.timestamp-field",
                        "at"))
                .isZero();

        assertThat(out()).contains((2 + 5 + 2 + 33 + 4 + 3) + " B -> 1 WCU per write");
    }

    @Test
    void pricesAreFlags() {
        assertThat(run("plan", "--events-per-second", "600", "--item-bytes", "180", "--price-write-million", "1.25"))
                .isZero();

        assertThat(out())
                .contains("$1.25 per million writes")
                .containsPattern("on-demand +\\$[0-9,.]+ = writes \\$1,971.00");
    }

    @Test
    void badCommandLinesExitWithTwoAndSayWhatIsWrong() {
        assertThat(run()).isEqualTo(2);
        assertThat(err())
                .contains("Missing a command: range, rollup, latest, plan or cost", "Usage: query [-h] COMMAND");

        assertThat(run("range", "--from", "2026-11-22", "--to", "2026-11-23")).isEqualTo(2);
        assertThat(err()).contains("Missing required option: '--device=ID'", "Usage: query range");

        assertThat(run("range", "--device", "d", "--from", "yesterday", "--to", "2026-11-23"))
                .isEqualTo(2);
        assertThat(err()).contains("--from 'yesterday': expected an ISO-8601 instant");

        assertThat(run("latest", "--device", "d", "--n", "many")).isEqualTo(2);
        assertThat(err()).contains("Invalid value for option '--n': 'many' is not an int");

        assertThat(run("latest", "--device", "d", "--format", "xml")).isEqualTo(2);
        assertThat(err()).contains("Invalid value for option '--format'", "JSON, TABLE, CSV");

        assertThat(run("latest", "--device", "d", "--tables.shard", "4")).isEqualTo(2);
        assertThat(err()).contains("Unknown option '--tables.shard' (did you mean '--tables.shards'?)");

        assertThat(run("plan", "--events-per-second", "600")).isEqualTo(2);
        assertThat(err())
                .contains("Missing required argument (specify one of these): (--item-bytes=B | --sample=reading.json)");

        assertThat(run("plan", "--events-per-second", "-5", "--item-bytes", "100"))
                .isEqualTo(2);
        assertThat(err()).contains("Invalid value for option '--events-per-second': '-5': expected a number >= 0");

        assertThat(run("scan")).isEqualTo(2);
        assertThat(err()).contains("Unmatched argument at index 0: 'scan'");
    }

    @Test
    void everyCommandHasHelpOnStandardOutput() {
        assertThat(run("--help")).isZero();
        assertThat(out())
                .contains("Usage: query [-h] COMMAND", "range", "rollup", "latest", "plan", "--config file.properties")
                .doesNotContain("generate-completion");

        for (String command : new String[] {"range", "rollup", "latest", "plan"}) {
            out.reset();
            assertThat(run(command, "--help")).isZero();
            assertThat(out()).startsWith("Usage: query " + command);
            out.reset();
            assertThat(run("help", command)).isZero();
            assertThat(out()).startsWith("Usage: query " + command);
        }
        assertThat(out()).contains("--events-per-second=R", "--item-bytes=B", "--sample=reading.json");
        out.reset();
        assertThat(run("rollup", "--help")).isZero();
        assertThat(out()).contains("--every=GRAIN", "--field=NAME");
    }

    @Test
    void printsAShellCompletionScript() {
        assertThat(run("generate-completion")).isZero();
        assertThat(out()).contains("complete -F", "range", "latest", "plan");
    }
}
