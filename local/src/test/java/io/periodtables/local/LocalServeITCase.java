package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./run-local --serve} beside a run, as a user tries it from a second terminal or a script:
 * the one that has the local run's data ({@link DataLock}) keeps it, the other is refused in one
 * line naming the holder's pid; {@code --serve} without a terminal on stdin serves until SIGTERM.
 */
class LocalServeITCase {

    @Test
    void aRunAndServeRefuseEachOtherAndServeWithoutATerminalRunsUntilSigterm(@TempDir Path dir) throws Exception {
        ChildJvm first = DemoRun.in(dir).with("duration", "PT3M").fleet(100, 10).start();
        String savepoint;
        try {
            first.awaitOutput("readings/s | in ");
            first.process().destroy(); // SIGTERM: drain, savepoint, summary
            first.waitFor();
            assertThat(first.exitCode()).as(first.stdout() + first.stderr()).isZero();
            Matcher printed = Pattern.compile("(?m)^Savepoint: (\\S+)$").matcher(first.stdout());
            assertThat(printed.find()).as(first.stdout()).isTrue();
            savepoint = printed.group(1);
        } finally {
            first.destroy();
        }

        ChildJvm serve = ChildJvm.start(dir, LocalRunner.class, "--serve");
        try {
            serve.process().getOutputStream().close(); // stdin at its end, as with < /dev/null or nohup
            serve.awaitOutput("serves the local run's data in .flink-local/dynamodb at http://127.0.0.1:");
            assertThat(serve.process().waitFor(5, TimeUnit.SECONDS))
                    .as("--serve ended without a signal:\n" + serve.stdout() + serve.stderr())
                    .isFalse();

            ChildJvm resume = ChildJvm.start(dir, LocalRunner.class, "--from-savepoint", savepoint);
            resume.waitFor();
            assertThat(resume.exitCode()).as(resume.stdout() + resume.stderr()).isEqualTo(1);
            assertThat(resume.stderr().strip())
                    .isEqualTo("Cannot start: ./run-local --serve (pid " + serve.pid() + ") has the local run's data"
                            + " in .flink-local/dynamodb, which this run would need to itself; stop it first (Enter"
                            + " or Ctrl-C where it runs, or kill " + serve.pid() + ")");
            long files = filesIn(dir.resolve(".flink-local/dynamodb"));
            ChildJvm fresh = ChildJvm.start(dir, LocalRunner.class, "--duration", "PT5S");
            fresh.waitFor();
            assertThat(fresh.exitCode()).as(fresh.stdout() + fresh.stderr()).isEqualTo(1);
            assertThat(fresh.stderr().strip())
                    .startsWith("Cannot start: ./run-local --serve (pid " + serve.pid() + ") has the local run's")
                    .contains("which this run would delete (a new run starts empty)")
                    .doesNotContain("\n");
            assertThat(filesIn(dir.resolve(".flink-local/dynamodb")))
                    .as("the data under --serve")
                    .isEqualTo(files);
            ChildJvm second = ChildJvm.start(dir, LocalRunner.class, "--serve");
            second.waitFor();
            assertThat(second.exitCode()).isEqualTo(1);
            assertThat(second.stderr().strip())
                    .startsWith("Nothing more to serve: ./run-local --serve (pid " + serve.pid() + ") already serves")
                    .doesNotContain("\n");

            serve.process().destroy(); // SIGTERM
            serve.waitFor();
            assertThat(serve.exitCode()).as(serve.stdout() + serve.stderr()).isZero();
        } finally {
            serve.destroy();
        }

        ChildJvm resumed = ChildJvm.start(dir, LocalRunner.class, "--from-savepoint", savepoint, "--duration", "PT3M");
        try {
            resumed.awaitOutput("readings/s | in ");
            ChildJvm refused = ChildJvm.start(dir, LocalRunner.class, "--serve");
            refused.waitFor();
            assertThat(refused.exitCode())
                    .as(refused.stdout() + refused.stderr())
                    .isEqualTo(1);
            assertThat(refused.stderr().strip())
                    .isEqualTo("Nothing served: a ./run-local run (pid " + resumed.pid() + ") has"
                            + " .flink-local/dynamodb and its own dynalite serves it while it runs (its summary prints"
                            + " the endpoint); --serve after it ends");
            resumed.process().destroy();
            resumed.waitFor();
            assertThat(resumed.exitCode())
                    .as(resumed.stdout() + resumed.stderr())
                    .isZero();
        } finally {
            resumed.destroy();
        }
    }

    private static long filesIn(Path dir) throws Exception {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).count();
        }
    }
}
