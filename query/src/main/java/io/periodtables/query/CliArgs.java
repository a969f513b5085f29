package io.periodtables.query;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The CLI's arguments split in two: the command's own flags ({@code --device d-1},
 * {@code --emit-config}) and everything else, which is configuration for
 * {@code ConfigLoader.load} ({@code --tables.prefix x}, {@code --config file}). Flags take
 * {@code --name value} or {@code --name=value}; switches take no value.
 */
final class CliArgs {

    private final Map<String, String> flags = new HashMap<>();
    private final Set<String> switches = new HashSet<>();
    private final List<String> configArgs = new ArrayList<>();

    private CliArgs() {}

    static CliArgs parse(List<String> args, Set<String> flagNames, Set<String> switchNames) {
        CliArgs parsed = new CliArgs();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg.startsWith("--") ? arg.substring(2) : arg;
            String inlineValue = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                inlineValue = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (switchNames.contains(name) && inlineValue == null) {
                parsed.switches.add(name);
            } else if (flagNames.contains(name)) {
                if (inlineValue == null && i + 1 >= args.size()) {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                parsed.flags.put(name, inlineValue != null ? inlineValue : args.get(++i));
            } else {
                parsed.configArgs.add(arg);
            }
        }
        return parsed;
    }

    String[] configArgs() {
        return configArgs.toArray(String[]::new);
    }

    boolean has(String name) {
        return switches.contains(name) || flags.containsKey(name);
    }

    String required(String name) {
        String value = flags.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    String optional(String name, String otherwise) {
        return flags.getOrDefault(name, otherwise);
    }

    double number(String name, double otherwise) {
        String text = flags.get(name);
        if (text == null) {
            return otherwise;
        }
        try {
            double value = Double.parseDouble(text.replace("_", "").replace(",", ""));
            if (value >= 0 && Double.isFinite(value)) {
                return value;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("--" + name + " '" + text + "': expected a number >= 0");
    }

    Duration duration(String name) {
        String text = flags.get(name);
        try {
            return text == null ? null : Duration.parse(text.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--" + name + " '" + text + "': expected an ISO-8601 duration such as P30D");
        }
    }

    /** An ISO-8601 instant (offsets allowed), a date (its start in {@code zone}) or epoch milliseconds. */
    Instant instant(String name, ZoneId zone) {
        String text = required(name);
        try {
            if (text.matches("-?\\d{1,18}")) {
                return Instant.ofEpochMilli(Long.parseLong(text));
            }
            if (text.matches("\\d{4}-\\d{2}-\\d{2}")) {
                return LocalDate.parse(text).atStartOfDay(zone).toInstant();
            }
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--" + name + " '" + text
                    + "': expected an ISO-8601 instant (2026-11-22T13:00:00Z), a date (2026-11-22) or epoch milliseconds");
        }
    }
}
