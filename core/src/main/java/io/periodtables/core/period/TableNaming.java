package io.periodtables.core.period;

import java.io.Serializable;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

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

    /**
     * Tag key holding the shard count a table was created with: the rotation writes it, the
     * query reads it to find every partition key of a device in that table.
     */
    public static final String SHARDS_TAG = "period-tables.shards";

    private static final DateTimeFormatter LATE_MONTH =
            DateTimeFormatter.ofPattern("uuuu-MM").withZone(ZoneOffset.UTC);

    private static final DateTimeFormatter LATE_MONTH_PARSER = DateTimeFormatter.ofPattern("uuuu-MM");

    private final String prefix;
    private final PeriodCalendar calendar;

    public TableNaming(String prefix, PeriodCalendar calendar) {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("table prefix '" + prefix + "' must be 1-200 of [A-Za-z0-9_.-]");
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
        return prefix + "_late_" + lateMonth(writeTime);
    }

    /** The month that names the late table of {@code writeTime}, as {@code yyyy-MM}: its UTC month. */
    public static String lateMonth(Instant writeTime) {
        return LATE_MONTH.format(writeTime);
    }

    public String rejectedTable() {
        return prefix + "_rejected";
    }

    /** The rollups table of {@code period} (the items of {@code item.Rollups}). */
    public String rollupsTable(Period period) {
        return prefix + "_rollups_" + period.label();
    }

    /** The table holding each device's newest reading ({@code dynamodb.LatestTable}). */
    public String latestTable() {
        return prefix + "_latest";
    }

    /** The table in which the sink writers report what they have written through ({@code dynamodb.WritersTable}). */
    public String writersTable() {
        return prefix + "_writers";
    }

    /**
     * What a table of this prefix is, read back from its name: the period of a period table,
     * the month of a late table, or the rejected table. Empty for any other name (including
     * names of another prefix or calendar).
     */
    public Optional<TableRef> parse(String tableName) {
        if (!hasOurPrefix(tableName)) {
            return Optional.empty();
        }
        String rest = tableName.substring(prefix.length() + 1);
        if (rest.equals("rejected")) {
            return Optional.of(new TableRef(tableName, TableRef.Kind.REJECTED, null, null));
        }
        if (rest.startsWith("rollups_")) {
            return calendar.parseLabel(rest.substring(8))
                    .map(p -> new TableRef(tableName, TableRef.Kind.ROLLUPS, p, null));
        }
        if (rest.startsWith("late_")) {
            try {
                YearMonth month = YearMonth.parse(rest.substring(5), LATE_MONTH_PARSER);
                return Optional.of(new TableRef(tableName, TableRef.Kind.LATE, null, month));
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        }
        return calendar.parseLabel(rest).map(p -> new TableRef(tableName, TableRef.Kind.PERIOD, p, null));
    }

    /** True when {@code tableName} is named like one of ours (period, late or rejected table). */
    public boolean hasOurPrefix(String tableName) {
        return tableName.startsWith(prefix + "_");
    }

    /** True when {@code tableName} is a late table of this prefix. */
    public boolean isLateTable(String tableName) {
        return tableName.startsWith(prefix + "_late_");
    }

    /**
     * A table of ours, read back from its name.
     *
     * @param period the period of a {@code PERIOD} or {@code ROLLUPS} table, else null
     * @param lateMonth the UTC write month of a {@code LATE} table, else null
     */
    @PublicEvolving
    public record TableRef(String name, Kind kind, Period period, YearMonth lateMonth) implements Serializable {
        /** The kinds of table the rotation manages. */
        public enum Kind {
            PERIOD,
            LATE,
            REJECTED,
            /**
             * The rollups of a period (the items of {@code item.Rollups}): created, archived-gated and retired with its
             * period table.
             */
            ROLLUPS
        }
    }
}
