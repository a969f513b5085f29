package io.periodtables.query.cli;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** What the {@code query} commands share: the job's configuration keys, the output streams, typed option values. */
public final class CliOptions {

    private CliOptions() {}

    /** Where a command prints: readings and plans to {@code out}, reports and errors to {@code err}. */
    record Streams(PrintStream out, PrintStream err) {}

    /**
     * The job's configuration from the arguments that are none of the command's own options
     * (a command's {@code @Unmatched}): {@code --key value} or {@code --config file.properties},
     * validated by {@link ConfigLoader}.
     */
    static PeriodTablesConfig configuration(List<String> unmatched) {
        return ConfigLoader.load(unmatched.toArray(String[]::new), Map.of(), true);
    }

    /** A number >= 0; {@code _} and {@code ,} may group digits. */
    static final class NonNegative implements ITypeConverter<Double> {
        @Override
        public Double convert(String text) {
            try {
                double value = Double.parseDouble(text.replace("_", "").replace(",", ""));
                if (value >= 0 && Double.isFinite(value)) {
                    return value;
                }
            } catch (NumberFormatException ignored) {
                // reported below
            }
            throw new TypeConversionException("'" + text + "': expected a number >= 0");
        }
    }

    /** An ISO-8601 duration such as {@code P30D}, in any case. */
    static final class IsoDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            try {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + text + "': expected an ISO-8601 duration such as P30D");
            }
        }
    }

    /**
     * An ISO-8601 instant (offsets allowed), a date (its start in {@code zone}, the configured
     * {@code tables.zone}, hence parsed after the configuration) or epoch milliseconds.
     */
    static Instant instant(String option, String text, ZoneId zone) {
        try {
            if (text.matches("-?\\d{1,18}")) {
                return Instant.ofEpochMilli(Long.parseLong(text));
            }
            if (text.matches("\\d{4}-\\d{2}-\\d{2}")) {
                return LocalDate.parse(text).atStartOfDay(zone).toInstant();
            }
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    option + " '" + text
                            + "': expected an ISO-8601 instant (2026-11-22T13:00:00Z), a date (2026-11-22) or epoch milliseconds");
        }
    }
}
