package io.periodtables.verification;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.annotation.VisibleForTesting;

/**
 * {@code ./verify}: runs the job's contract against the caller's Kinesis and DynamoDB (or the
 * emulators) and prints one PASS/FAIL line a check; exit code 0 only when every check passed.
 *
 * <p>The command: its options ({@link VerifyOptions}), the account (STS) and region, the run's name
 * and the cost, a confirmation (unless {@code --yes}), then the run in its order ({@link VerifyRun})
 * and the deletion of everything the run created ({@link RunCleanup}), also on failure and on
 * Ctrl-C (a shutdown hook); {@code --cleanup} deletes earlier runs' leftovers instead.
 */
public final class Verify {
    private final PrintStream out;
    private final InputStream in;
    private final Supplier<String> runNames;

    Verify(PrintStream out, InputStream in) {
        this(out, in, RunResources::randomName);
    }

    /** @param runNames the run's name ({@code verify-<8 hex>}); tests fix it to lay a table beside the run's */
    @VisibleForTesting
    Verify(PrintStream out, InputStream in, Supplier<String> runNames) {
        this.out = out;
        this.in = in;
        this.runNames = runNames;
    }

    public static void main(String[] args) {
        System.exit(new Verify(System.out, System.in).run(Arrays.asList(args), true));
    }

    /**
     * Runs the command; returns its exit code (0 all passed, 1 a check failed or the run failed, 2 bad
     * arguments, 3 not confirmed).
     *
     * @param hook whether Ctrl-C deletes what the run created (a shutdown hook; tests run without)
     */
    int run(List<String> args, boolean hook) {
        VerifyOptions options;
        try {
            options = VerifyOptions.parse(args);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            return 2;
        }
        if (options.help()) {
            out.println(VerifyOptions.USAGE);
            return 0;
        }
        try (Target target = Target.of(options)) {
            out.println("Where: " + target.identity() + ", region " + target.region());
            if (options.cleanup()) {
                return cleanup(target, options);
            }
            return verify(target, options, hook);
        } catch (PermissionDenied denied) {
            out.println(denied.line());
            return 1;
        }
    }

    private int cleanup(Target target, VerifyOptions options) {
        if (!options.yes()
                && !confirm("Delete every stream and table left by earlier verify runs (named verify-<run>,"
                        + " tagged as verify tags them)?")) {
            return 3;
        }
        List<String> runs = RunResources.cleanupLeftovers(target, out);
        out.println(runs.isEmpty() ? "Nothing left by earlier runs." : "Deleted the leftovers of " + runs + ".");
        return 0;
    }

    private int verify(Target target, VerifyOptions options, boolean hook) {
        RunResources resources = new RunResources(target, runNames.get());
        String run = resources.run();
        Duration period = options.period();
        // the data's first period: ten periods back, so the wall clock never holds the job's watermark
        long periodMillis = period.toMillis();
        Instant start =
                Instant.ofEpochMilli((System.currentTimeMillis() - 10 * periodMillis) / periodMillis * periodMillis);
        PeriodTablesConfig config;
        try {
            config = ConfigLoader.fromMap(
                    VerifyRun.jobSettings(
                            target, run, period, "arn:aws:kinesis:" + target.region() + ":000000000000:stream/" + run),
                    false);
        } catch (ConfigException e) {
            out.println(e.getMessage());
            return 2;
        }
        DataSet data = new DataSet(start, period, config.naming());
        out.println("Run: " + run + ": stream " + run + " (tag " + RunResources.TAG + "=" + run + "), the job's tables "
                + run + "_* (tag managed-by=period-tables); periods of " + period + " from " + start);
        new CostEstimate(2, 8, VerifyRun.CURRENT, data.records(), 500).lines().forEach(out::println);
        if (!options.yes() && !confirm("Create them and run?")) {
            return 3;
        }
        RunCleanup cleanup = new RunCleanup(resources, options.keep());
        Thread onCtrlC = new Thread(
                () -> {
                    out.println("Stopped by a signal: the job stops, then what the run created is deleted");
                    cleanup.run(out);
                },
                "verify-cleanup");
        if (hook) {
            Runtime.getRuntime().addShutdownHook(onCtrlC);
        }
        boolean passed = false;
        long started = System.nanoTime();
        try {
            passed = new VerifyRun(out, target, resources, period, data).run(cleanup);
        } catch (PermissionDenied denied) {
            out.println(denied.line());
        } catch (RuntimeException e) {
            out.println("FAIL run: expected it to end, found " + e);
        } finally {
            cleanup.run(out);
            if (hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(onCtrlC);
                } catch (IllegalStateException exiting) {
                    // Ctrl-C: the hook runs (and finds the cleanup done)
                }
            }
        }
        out.printf(
                "%s in %d s.%n",
                passed ? "All checks passed" : "Some checks failed",
                Duration.ofNanos(System.nanoTime() - started).toSeconds());
        return passed ? 0 : 1;
    }

    private boolean confirm(String question) {
        out.print(question + " [y/N] ");
        out.flush();
        try {
            String answer = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            return answer != null
                    && (answer.trim().equalsIgnoreCase("y") || answer.trim().equalsIgnoreCase("yes"));
        } catch (IOException e) {
            return false;
        }
    }
}
