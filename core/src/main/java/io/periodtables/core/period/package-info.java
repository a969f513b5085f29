/**
 * Periods on the calendar: a period's length and its instants (PeriodLength, PeriodCalendar),
 * whether a watermark has closed it (Period.closedBy, the one rule the job, the archive and the
 * rotation use), and every table's name (TableNaming).
 */
package io.periodtables.core.period;
