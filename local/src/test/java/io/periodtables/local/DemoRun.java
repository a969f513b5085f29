package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A local run of a small demo fleet as the local ITCases start it: {@link LocalRunner} in a child JVM
 * in a folder of its own, with the arguments every such test shares (one-minute periods, event time
 * 20 times the wall clock's, 200 readings a second of 20 devices, a checkpoint every 5 s), each of which
 * a test may replace ({@link #with}) or leave out ({@link #without}). {@code ./run-local}'s own demo
 * arguments are the user's, not these: a test's fleet is smaller so that a short run closes periods.
 */
final class DemoRun {
    private final Path dir;
    private final Map<String, String> options = new LinkedHashMap<>();
    private final List<String> properties = new ArrayList<>();

    private DemoRun(Path dir) {
        this.dir = dir;
        options.put("tables.period", "PT1M");
        options.put("rotation.lead", "PT20S");
        options.put("window.allowed-lateness", "PT5S");
        options.put("generator.speedup", "20");
        options.put("generator.rate", "200");
        options.put("generator.devices", "20");
        options.put("input.max-future", "P1D");
        options.put("checkpoint.interval", "PT5S");
    }

    /** A demo run in {@code dir}, its {@code .flink-local} there. */
    static DemoRun in(Path dir) {
        return new DemoRun(dir);
    }

    /**
     * The fleet put into the run's own Kinesis stream instead: on the wall clock (the Kinesis source holds
     * event time there), so without a speedup or a future bound.
     */
    static DemoRun kinesis(Path dir) {
        return in(dir).with("source", "kinesis").without("generator.speedup").without("input.max-future");
    }

    /** {@code --key value}, in place of the shared value if there is one. */
    DemoRun with(String key, String value) {
        options.put(key, value);
        return this;
    }

    /** Without the shared {@code --key}. */
    DemoRun without(String key) {
        options.remove(key);
        return this;
    }

    /** The fleet's readings a second and devices. */
    DemoRun fleet(int rate, int devices) {
        return with("generator.rate", String.valueOf(rate)).with("generator.devices", String.valueOf(devices));
    }

    /** A system property of the child JVM, {@code name=value}. */
    DemoRun property(String property) {
        properties.add(property);
        return this;
    }

    /** Starts the run. */
    ChildJvm start() throws IOException {
        List<String> args = new ArrayList<>();
        options.forEach((key, value) -> {
            args.add("--" + key);
            args.add(value);
        });
        return ChildJvm.start(dir, properties, LocalRunner.class, args.toArray(String[]::new));
    }

    /** Runs it to its end (a {@code --duration} bounds it) and checks that it ended well. */
    ChildJvm run() throws Exception {
        ChildJvm run = start();
        run.waitFor();
        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        return run;
    }
}
