package io.periodtables.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Runs the benchmarks and writes {@code bench/RESULTS.md}. Arguments: {@code --n 200000}
 * (readings per end-to-end run), {@code --capacity-n 500000} (per
 * instant-backend run), {@code --contenders full-job,sink-only,raw-sdk} (of the capacity bench), {@code --memory-n 1000000} (100k devices), {@code --runs 3}, {@code --only e2e,capacity,rollover,size,memory,recovery,query,idle-kinesis}
 * and {@code --bench-dir bench}. Start it with {@code ./bench/run}.
 */
public final class BenchMain {

    static final Set<String> ALL = new LinkedHashSet<>(Arrays.asList("size", "e2e", "capacity", "rollover", "memory", "recovery", "query", "idle-kinesis"));

    static final String QUERY_SECTION = "7-query.md";
    static final String IDLE_KINESIS_SECTION = "8-idle-kinesis.md";

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        int n = 200_000;
        int runs = 3;
        int capacityN = 500_000;
        int memoryN = 1_000_000;
        Set<String> only = ALL;
        Set<String> contenders = new LinkedHashSet<>(CapacityBench.CONTENDERS);
        Path benchDir = Path.of("bench");
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--n" -> n = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--capacity-n" -> capacityN = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--contenders" -> contenders = new LinkedHashSet<>(Arrays.asList(args[i + 1].split(",")));
                case "--memory-n" -> memoryN = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--only" -> only = new LinkedHashSet<>(Arrays.asList(args[i + 1].split(",")));
                case "--bench-dir" -> benchDir = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; expected --n, --capacity-n, --contenders, --memory-n, --runs, --only " + String.join(",", ALL) + ", --bench-dir");
            }
        }
        ResultsFile results = new ResultsFile(benchDir);
        for (String part : only) {
            E2eBench.log("=== " + part + " (load average " + MachineFacts.loadAverage() + ")");
            switch (part) {
                case "size" -> results.writeSection("4-size.md", ItemSizeBench.run());
                case "e2e" -> results.writeSection("1-e2e.md", E2eBench.run(n, runs));
                case "rollover" -> results.writeSection("3-rollover.md", RolloverBench.run(benchDir));
                case "memory" -> results.writeSection("5-memory.md", MemoryBench.run(memoryN, benchDir));
                case "recovery" -> results.writeSection("6-recovery.md", RecoveryBench.run(runs, benchDir));
                case "capacity" -> results.writeSection("2-capacity.md", CapacityBench.run(capacityN, runs, benchDir, contenders));
                case "query" -> results.writeSection(QUERY_SECTION, QueryBench.run());
                case "idle-kinesis" -> results.writeSection(IDLE_KINESIS_SECTION, IdleKinesisBench.run());
                default -> throw new IllegalArgumentException("unknown benchmark " + part + "; expected one of " + ALL);
            }
        }
        // the query or idle-kinesis part alone adds its section to the RESULTS.md there is, whatever
        // sections target/ still holds
        Path written = only.equals(Set.of("query")) ? results.spliceSection(QUERY_SECTION)
                : only.equals(Set.of("idle-kinesis")) ? results.spliceSection(IDLE_KINESIS_SECTION)
                : results.assemble(header());
        E2eBench.log("wrote " + written.toAbsolutePath());
        System.exit(0);
    }

    private static String header() {
        return "# period-tables benchmarks\n\n"
                + "Written by `./bench/run` (see bench/README-section.md). Not part of the test suite.\n"
                + "Sections may come from separate invocations; each states its own load average.\n\n"
                + "## Machine\n\n" + MachineFacts.markdown();
    }
}
