package io.periodtables.job.time;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import java.util.Collection;
import java.util.Collections;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Assigns each reading to the event-time window of its period, {@code [periodStart, periodEnd)},
 * which is exactly one period table. Periods come from the configured {@link PeriodCalendar},
 * so windows follow the calendar (days, ISO weeks, months, DST) rather than fixed epochs.
 *
 * <p>The window end is the rollover; the operator's allowed lateness is how long the old table
 * still takes writes; later readings leave through the late side output.
 */
@Internal
public final class PeriodWindows extends WindowAssigner<Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    private final PeriodCalendar calendar;
    private final Trigger<Object, TimeWindow> trigger;

    // Readings of one period arrive together; the last window saves a calendar lookup per record.
    private transient TimeWindow last;

    public PeriodWindows(PeriodCalendar calendar, Trigger<Object, TimeWindow> trigger) {
        this.calendar = calendar;
        this.trigger = trigger;
    }

    @Override
    public Collection<TimeWindow> assignWindows(Object element, long timestamp, WindowAssignerContext context) {
        TimeWindow window = last;
        if (window == null || timestamp < window.getStart() || timestamp >= window.getEnd()) {
            Period period = calendar.periodOf(timestamp);
            window = new TimeWindow(period.startMillis(), period.endMillis());
            last = window;
        }
        return Collections.singletonList(window);
    }

    @Override
    public Trigger<Object, TimeWindow> getDefaultTrigger() {
        return trigger;
    }

    @Override
    @SuppressWarnings("deprecation")
    public Trigger<Object, TimeWindow> getDefaultTrigger(
            org.apache.flink.streaming.api.environment.StreamExecutionEnvironment env) {
        return trigger;
    }

    @Override
    public TypeSerializer<TimeWindow> getWindowSerializer(ExecutionConfig executionConfig) {
        return new TimeWindow.Serializer();
    }

    @Override
    public boolean isEventTime() {
        return true;
    }

    @Override
    public String toString() {
        return "PeriodWindows(" + calendar + ")";
    }
}
