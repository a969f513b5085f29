package io.periodtables.conf;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The one place that turns periods and instants into table names. Names are
 * {@code <prefix>_<label>} for period tables, {@code <prefix>_late_<yyyy-MM>} for the late table
 * of a UTC write month and {@code <prefix>_rejected}; they never contain device-supplied text.
 */
@PublicEvolving
public final class TableNaming implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What {@code tables.prefix} accepts. */
    public static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]{1,200}");

    /** Tag key and value that mark a table as created and owned by period-tables. */
    public static final String MANAGED_BY_TAG = "managed-by";

    public static final String MANAGED_BY_VALUE = "period-tables";

    private static final DateTimeFormatter LATE_MONTH =
            DateTimeFormatter.ofPattern("uuuu-MM").withZone(ZoneOffset.UTC);

    private final String prefix;
    private final PeriodCalendar calendar;

    public TableNaming(String prefix, PeriodCalendar calendar) {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException(
                    "table prefix '" + prefix + "' must be 1-200 of [A-Za-z0-9_.-]");
        }
        this.prefix = prefix;
        this.calendar = Objects.requireNonNull(calendar, "calendar");
    }

    public String prefix() {
        return prefix;
    }

    public PeriodCalendar calendar() {
        return calendar;
    }

    /** The table of {@code period}. */
    public String periodTable(Period period) {
        return prefix + "_" + period.label();
    }

    /** The table of the period that contains {@code eventTime}. */
    public String periodTableOf(Instant eventTime) {
        return periodTable(calendar.periodOf(eventTime));
    }

    /** The late table for readings written (not measured) at {@code writeTime}: its UTC month. */
    public String lateTable(Instant writeTime) {
        return prefix + "_late_" + LATE_MONTH.format(writeTime);
    }

    public String rejectedTable() {
        return prefix + "_rejected";
    }

    /** True when {@code tableName} is named like one of ours (period, late or rejected table). */
    public boolean hasOurPrefix(String tableName) {
        return tableName.startsWith(prefix + "_");
    }

    /** True when {@code tableName} is a late table of this prefix. */
    public boolean isLateTable(String tableName) {
        return tableName.startsWith(prefix + "_late_");
    }
}
