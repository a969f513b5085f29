package io.periodtables.verification;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The command's options.
 *
 * @param period the job's {@code tables.period} for the run (short, so that three periods pass quickly)
 * @param yes run without asking for confirmation
 * @param keep leave what the run created, and print how to delete it
 * @param cleanup only delete the leftovers of earlier runs (found by name and tag)
 * @param emulators start dynalite and kinesalite here and run against them
 */
record VerifyOptions(
        String region,
        URI dynamoDbEndpoint,
        URI kinesisEndpoint,
        Duration period,
        boolean yes,
        boolean keep,
        boolean cleanup,
        boolean emulators,
        boolean help) {

    static final String USAGE = String.join(
            "\n",
            "Usage: ./verify [--yes] [--keep] [--region R] [--period PT1M]",
            "       ./verify --cleanup [--yes] [--region R]",
            "       ./verify --emulators | --dynamodb-endpoint URL --kinesis-endpoint URL  (no AWS account)",
            "",
            "Checks the job's contract on your account's Kinesis and DynamoDB (default credential chain and",
            "region): creates a 1-shard stream and the job's tables under a random prefix verify-<run>, runs the",
            "job on a local Flink MiniCluster, puts a fixed data set, splits the shard, prints PASS/FAIL a check",
            "and deletes what it created (also on failure and Ctrl-C). Costs well under a dollar (printed first).",
            "",
            "  --yes                  do not ask before creating anything",
            "  --keep                 leave the run's stream and tables, print how to delete them",
            "  --cleanup              delete what earlier runs left (streams and tables named verify-<run>,",
            "                         tagged as verify tags them), then exit",
            "  --region R             AWS region (default: the SDK's default chain, else us-east-1)",
            "  --period P             the job's tables.period, dividing a day, PT30S to PT1H (default PT1M)",
            "  --emulators            start dynalite and kinesalite here and run against them",
            "  --dynamodb-endpoint U, --kinesis-endpoint U",
            "                         run against these endpoints (emulators) instead of AWS",
            "  -h, --help             show this help");

    /** @throws IllegalArgumentException with one line naming the option */
    static VerifyOptions parse(List<String> args) {
        String region = null;
        URI dynamo = null;
        URI kinesis = null;
        Duration period = Duration.ofMinutes(1);
        boolean yes = false;
        boolean keep = false;
        boolean cleanup = false;
        boolean emulators = false;
        boolean help = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--yes", "-y" -> yes = true;
                case "--keep" -> keep = true;
                case "--cleanup" -> cleanup = true;
                case "--emulators" -> emulators = true;
                case "--help", "-h" -> help = true;
                case "--region", "--dynamodb-endpoint", "--kinesis-endpoint", "--period" -> {
                    if (i + 1 == args.size()) {
                        throw new IllegalArgumentException("Invalid argument " + arg + ": it needs a value");
                    }
                    String value = args.get(++i);
                    switch (arg) {
                        case "--region" -> region = value;
                        case "--dynamodb-endpoint" -> dynamo = uri(arg, value);
                        case "--kinesis-endpoint" -> kinesis = uri(arg, value);
                        default -> period = period(value);
                    }
                }
                default ->
                    throw new IllegalArgumentException(
                            "Unknown option '" + arg + "'; ./verify --help lists the options");
            }
        }
        if (emulators && (dynamo != null || kinesis != null)) {
            throw new IllegalArgumentException(
                    "Invalid arguments: --emulators starts its own; leave out --dynamodb-endpoint and"
                            + " --kinesis-endpoint");
        }
        if ((dynamo == null) != (kinesis == null)) {
            throw new IllegalArgumentException("Invalid arguments: --dynamodb-endpoint and --kinesis-endpoint go"
                    + " together (a run never mixes AWS and an emulator)");
        }
        if (keep && cleanup) {
            throw new IllegalArgumentException("Invalid arguments: --keep and --cleanup contradict each other");
        }
        return new VerifyOptions(region, dynamo, kinesis, period, yes, keep, cleanup, emulators, help);
    }

    private static URI uri(String option, String value) {
        try {
            URI uri = URI.create(value);
            if (uri.getScheme() != null && uri.getHost() != null) {
                return uri;
            }
        } catch (IllegalArgumentException e) {
            // the message below
        }
        throw new IllegalArgumentException(
                "Invalid argument " + option + " '" + value + "': expected a URL such as http://127.0.0.1:4567");
    }

    private static Duration period(String value) {
        Duration period;
        try {
            period = Duration.parse(value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "Invalid argument --period '" + value + "': expected an ISO-8601 duration such as PT1M");
        }
        // the run's lead, lateness and out-of-orderness are 1/2, 1/6 and 1/30 of the period, in whole seconds
        if (period.compareTo(Duration.ofSeconds(30)) < 0
                || period.compareTo(Duration.ofHours(1)) > 0
                || period.toMillis() % 30_000 != 0
                || Duration.ofDays(1).toMillis() % period.toMillis() != 0) {
            throw new IllegalArgumentException("Invalid argument --period '" + value
                    + "': expected PT30S to PT1H, a multiple of 30 seconds that divides a day (e.g. PT1M, PT5M)");
        }
        return period;
    }
}
