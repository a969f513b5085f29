package io.periodtables.job;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The local run as a user starts it: a separate JVM running {@link LocalRunner}. */
class LocalRunnerITCase {

    @Test
    void badConfigurationPrintsOneLineAndExitsNonZero() throws Exception {
        Run run = runLocal("--tables.shards", "0");
        assertThat(run.exitCode).isEqualTo(2);
        assertThat(run.stderr.strip())
                .isEqualTo("Invalid configuration: tables.shards = '0': expected a whole number from 1 to 100");
    }

    @Test
    void demoRollsTablesAndReportsWhatWasWritten() throws Exception {
        Run run = runLocal("--duration", "PT25S", "--tables.period", "PT1M", "--rotation.lead", "PT20S",
                "--window.allowed-lateness", "PT5S", "--generator.speedup", "20", "--generator.rate", "500",
                "--generator.devices", "50", "--tables.shards", "2", "--input.max-future", "P1D",
                "--checkpoint.interval", "PT5S", "--tables.prefix", "localrun");
        assertThat(run.exitCode).as(run.stdout + run.stderr).isZero();
        assertThat(run.stdout).contains("Flink Web UI: http://127.0.0.1:").contains("readings/s");
        // Summary: at least three period tables with items, and a total that matches what went in.
        Matcher table = Pattern.compile("(?m)^localrun_\\S+T\\d{4}\\s+([\\d,]+)\\s+(\\S+)$").matcher(run.stdout);
        int tables = 0;
        while (table.find()) {
            tables++;
        }
        assertThat(tables).as(run.stdout).isGreaterThanOrEqualTo(3);
        assertThat(run.stdout).doesNotContain("Nothing was written");
    }

    private static Run runLocal(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "--add-opens", "java.base/java.util=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                "--add-opens", "java.base/java.time=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-Xmx1g",
                "-cp", System.getProperty("java.class.path"), LocalRunner.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("DDB_LOCAL_TELEMETRY", "0");
        File out = File.createTempFile("localrun", ".out");
        File err = File.createTempFile("localrun", ".err");
        builder.redirectOutput(out).redirectError(err);
        Process process = builder.start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("local run did not end within 3 minutes");
        }
        Run run = new Run(process.exitValue(),
                java.nio.file.Files.readString(out.toPath(), StandardCharsets.UTF_8),
                java.nio.file.Files.readString(err.toPath(), StandardCharsets.UTF_8));
        out.delete();
        err.delete();
        return run;
    }

    private record Run(int exitCode, String stdout, String stderr) {}
}
