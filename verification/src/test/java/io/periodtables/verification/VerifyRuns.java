package io.periodtables.verification;

import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.Kinesalite;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/** Runs the command in this JVM against the emulators and keeps what it printed. */
final class VerifyRuns {
    private VerifyRuns() {}

    /** What one run printed, and its exit code. */
    record Outcome(int exitCode, List<String> lines) {
        List<String> starting(String prefix) {
            return lines.stream().filter(l -> l.startsWith(prefix)).toList();
        }
    }

    /** {@code ./verify --dynamodb-endpoint … --kinesis-endpoint … <more>}, without a shutdown hook. */
    static Outcome run(Dynalite dynalite, Kinesalite kinesalite, Supplier<String> runNames, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "--dynamodb-endpoint",
                dynalite.endpoint().toString(),
                "--kinesis-endpoint",
                kinesalite.endpoint().toString()));
        args.addAll(List.of(more));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new Verify(out, new ByteArrayInputStream(new byte[0]), runNames).run(args, false);
        String printed = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        return new Outcome(code, printed.lines().toList());
    }

    /** Every table and stream whose name starts with {@code verify-}. */
    static List<String> leftovers(DynamoDbClient dynamo, KinesisClient kinesis) {
        List<String> names = new ArrayList<>();
        dynamo.listTablesPaginator().tableNames().stream()
                .filter(n -> n.startsWith("verify-"))
                .forEach(names::add);
        kinesis.listStreams().streamNames().stream()
                .filter(n -> n.startsWith("verify-"))
                .forEach(names::add);
        return names;
    }
}
