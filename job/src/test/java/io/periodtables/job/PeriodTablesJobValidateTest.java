package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code PeriodTablesJob --validate FILE}: MSF's runtime properties read as on MSF, each problem
 * printed as the job would stop with it, and an exit status a script can test.
 */
class PeriodTablesJobValidateTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void theGuidesRuntimePropertiesWouldStart() {
        assertThat(validate(Path.of("..", "docs", "msf-runtime-properties.json").toString()))
                .as(errors())
                .isZero();
        assertThat(errors()).isEmpty();
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(printed)
                .startsWith(Path.of("..", "docs", "msf-runtime-properties.json") + " is valid: the job would start")
                .contains("tables.period=PT1H")
                // what only the local run reads is left out
                .doesNotContain("generator.", "dynamodb.embedded=", "dynamodb.limits=", "parallelism=")
                // the guide's file points at local emulators, which MSF cannot reach
                .containsPattern("(?m)^note: dynamodb.endpoint = http://127.0.0.1:8000 is the machine's own loopback");
    }

    @Test
    void brokenJsonIsOneLineWithoutTheLibrarysClassNames() throws IOException {
        assertThat(validate(write("[{\"PropertyGroupId\": \"job\", \"PropertyMap\": {\"source\": }}]")
                        .toString()))
                .isEqualTo(2);
        assertThat(errors()).startsWith("Cannot read runtime properties ").doesNotContain("\n", "shaded", "Exception");
    }

    @Test
    void withoutAFileTheUsageNamesTheScript() {
        assertThat(validate()).isEqualTo(2);
        assertThat(errors())
                .startsWith("Usage: ./infra/validate-properties FILE")
                .doesNotContain("--validate");
    }

    @Test
    void everyUnknownKeyAndRefusedValueIsOneLineNamingIt() throws IOException {
        Path file = write("""
                [{"PropertyGroupId": "job", "PropertyMap": {"source": "kinesis"}},
                 {"PropertyGroupId": "kinesis", "PropertyMap": {
                     "stream-arn": "arn:aws:kinesis:eu-west-1:123456789012:stream/readings"}},
                 {"PropertyGroupId": "tables", "PropertyMap": {"shard": "4", "period": "P2D"}},
                 {"PropertyGroupId": "sink", "PropertyMap": {"max-in-flight": "0"}}]
                """);
        assertThat(validate(file.toString())).isEqualTo(1);
        assertThat(errors().split("\n"))
                .hasSize(3)
                .anySatisfy(line -> assertThat(line).startsWith("Unknown configuration key 'tables.shard'"))
                .anySatisfy(line -> assertThat(line).startsWith("Invalid configuration: tables.period = 'P2D'"))
                .anySatisfy(line -> assertThat(line).startsWith("Invalid configuration: sink.max-in-flight = '0'"));
    }

    @Test
    void argumentsGoOnTopOfTheFileAsOnTheJobsCommandLine() throws IOException {
        Path file = write("""
                [{"PropertyGroupId": "rollups", "PropertyMap": {"every": "PT1M"}}]
                """);
        assertThat(validate(file.toString())).as(errors()).isZero();
        assertThat(validate(file.toString(), "--late.policy", "period-table")).isEqualTo(1);
        assertThat(errors()).startsWith("Invalid configuration: late.policy = 'period-table': must be late-table");
    }

    @Test
    void aFileThatIsNotThereOrNotTheMsfShapeIsExitStatus2() throws IOException {
        assertThat(validate(dir.resolve("missing.json").toString())).isEqualTo(2);
        assertThat(validate(write("{\"ApplicationDetail\": {\"x\": 1}}").toString()))
                .isEqualTo(2);
        assertThat(errors()).contains("Cannot read runtime properties");
    }

    private int validate(String... args) {
        err.reset();
        return PeriodTablesJob.validate(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8).trim();
    }

    private Path write(String json) throws IOException {
        Path file = Files.createTempFile(dir, "groups", ".json");
        Files.writeString(file, json);
        return file;
    }
}
