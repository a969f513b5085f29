package io.periodtables.bench.hotdevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Section 20's arithmetic: per-interval CPU per reading, the minutes compared, the hot device's own share. */
class HotDeviceReportTest {

    /**
     * Every 30 s: 1,000 hot readings/s at 40 µs and 100 quiet ones/s at 600 µs, 40 % of the quiet
     * devices on the hot subtask; the process's CPU per reading grows by 10 % a minute.
     */
    private static List<HotDeviceBench.Sample> samples(int intervals) {
        List<HotDeviceBench.Sample> samples = new ArrayList<>();
        double cpu = 0;
        double hotTask = 0;
        double otherTask = 0;
        for (int i = 0; i <= intervals; i++) {
            long readings = i * 30L * 1100;
            long hotSubtask = i * 30L * (1000 + 40);
            samples.add(new HotDeviceBench.Sample(
                    i * 30.0, readings, readings, hotSubtask, cpu, 0, hotTask, otherTask, 0, 0, 0));
            cpu += 30 * 1100 * 100e-6 * Math.pow(1.1, i / 2);
            hotTask += 30 * (1000 * 40e-6 + 40 * 600e-6);
            otherTask += 30 * 60 * 600e-6;
        }
        return samples;
    }

    @Test
    void theLastMinuteIsComparedWithTheFirstAndTheHotDevicesOwnCostIsSeparated() {
        List<HotDeviceReport.Interval> intervals = HotDeviceReport.intervals(samples(6));
        HotDeviceReport.Interval first = HotDeviceReport.minute(intervals, false);
        HotDeviceReport.Interval last = HotDeviceReport.minute(intervals, true);

        assertThat(intervals).hasSize(6);
        assertThat(first.cpuPerReading()).isCloseTo(100, offset(1e-6));
        assertThat(last.cpuPerReading() / first.cpuPerReading()).isCloseTo(1.21, offset(1e-9));
        assertThat(last.otherTaskPerReading()).isCloseTo(600, offset(1e-6));
        assertThat(last.hotDevicePerReading(0.4)).isCloseTo(40, offset(1e-6));
    }
}
