package io.periodtables.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.period.PeriodLength;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TableWrites} against what bench/RESULTS.md §21 measured (`./bench/run --only
 * write-units`): for each fleet shape and setting, the plan's write units per reading by table
 * within 10 % of the measured ones, so the rule the plan prices is the one the job follows. A
 * re-run of the bench that moves away from the plan fails here.
 */
class TableWritesMeasuredTest {
    private static final Path RESULTS = Path.of("..", "bench", "RESULTS.md");
    /** The bench's fleet: 300 devices, parallelism 2, readings of about 200 bytes. */
    private static final int DEVICES = 300;

    @Test
    void thePlansWriteUnitsPerReadingAreWithinTenPercentOfTheMeasuredOnes() throws Exception {
        List<String[]> rows = Files.readString(RESULTS)
                .lines()
                .dropWhile(l -> !l.startsWith("## 21."))
                .skip(1)
                .takeWhile(l -> !l.startsWith("## "))
                .filter(l -> l.startsWith("| PT"))
                .map(l -> l.substring(2, l.length() - 2).split(" \\| "))
                .toList();
        assertThat(rows).as("the measured rows of bench/RESULTS.md §21").hasSize(6);
        for (String[] row : rows) {
            Duration every = Duration.parse(row[0]);
            Map<String, String> keys = new HashMap<>();
            if (!row[1].equals("—")) {
                keys.put("rollups.every", row[1]);
            }
            TableWrites plan = TableWrites.of(
                    new FleetShape(DEVICES, every, FleetShape.MSF_CHECKPOINT_INTERVAL, 2),
                    200,
                    PeriodLength.DAY,
                    ConfigLoader.fromMap(keys, true));
            String shape = "a reading every " + every + (keys.isEmpty() ? "" : ", rollups " + row[1]);
            assertThat(plan.period()).as("%s: period", shape).isCloseTo(number(row[3]), within(0.1 * plan.period()));
            assertThat(plan.latest()).as("%s: latest", shape).isCloseTo(number(row[4]), within(0.1 * plan.latest()));
            assertThat(plan.rollups())
                    .as("%s: rollups", shape)
                    .isCloseTo(number(row[5]), within(Math.max(0.1 * plan.rollups(), 0.001)));
            assertThat(plan.total()).as("%s: total", shape).isCloseTo(number(row[8]), within(0.1 * plan.total()));
        }
    }

    private static double number(String cell) {
        return Double.parseDouble(cell.replace(",", ""));
    }
}
