package io.periodtables.core.config;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.period.TableNaming;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The value rules of the configuration keys: each parses a text value or throws with what would be
 * accepted, which {@link ConfigLoader} turns into one line naming the key.
 */
public final class ConfigValues {

    private ConfigValues() {}

    static <E extends Enum<E>> E enumValue(Class<E> type, String s) {
        String normalized = s.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(normalized)) {
                return e;
            }
        }
        StringBuilder accepted = new StringBuilder("expected one of");
        for (E e : type.getEnumConstants()) {
            accepted.append(' ').append(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw new IllegalArgumentException(accepted.toString());
    }

    /**
     * The DynamoDB limits a local emulator enforces: {@code off}, {@code all} or a list of {@link #DYNAMODB_LIMITS}.
     */
    static final List<String> DYNAMODB_LIMITS =
            List.of("throughput", "on-demand", "partitions", "decreases", "switches", "tables");

    static Set<String> dynamoDbLimits(String s) {
        String text = s.trim().toLowerCase(Locale.ROOT);
        if (text.equals("off") || text.equals("false") || text.equals("none")) {
            return Set.of();
        }
        if (text.equals("all") || text.equals("on") || text.equals("true")) {
            return new LinkedHashSet<>(DYNAMODB_LIMITS);
        }
        Set<String> limits = new LinkedHashSet<>();
        for (String limit : text.split(",")) {
            if (!DYNAMODB_LIMITS.contains(limit.trim())) {
                throw new IllegalArgumentException(
                        "expected off, all, or a list of " + String.join(",", DYNAMODB_LIMITS));
            }
            limits.add(limit.trim());
        }
        return limits;
    }

    static int intInRange(String s, int min, int max) {
        try {
            int v = Integer.parseInt(s);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("expected a whole number from " + min + " to " + max);
    }

    static long positiveLong(String s) {
        try {
            long v = Long.parseLong(s);
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("expected a whole number >= 1");
    }

    static double positiveNumber(String s) {
        try {
            double v = Double.parseDouble(s);
            if (v > 0 && Double.isFinite(v)) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("expected a number > 0");
    }

    static Capacity provisioned(String s) {
        Capacity c = Capacity.parse(s);
        if (c.onDemand()) {
            throw new IllegalArgumentException(
                    "expected W/R with whole numbers W,R >= 1 (e.g. 1/1); on-demand has no bounds");
        }
        return c;
    }

    static double utilization(String s) {
        try {
            double v = Double.parseDouble(s);
            if (v >= 0.2 && v <= 0.9) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(
                "expected a number from 0.2 to 0.9 (Application Auto Scaling's range for DynamoDB)");
    }

    static boolean bool(String s) {
        if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(s);
        }
        throw new IllegalArgumentException("expected true or false");
    }

    static Duration duration(String s) {
        try {
            return Duration.parse(s.toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected an ISO-8601 duration such as PT30S, PT5M, PT1H or P30D");
        }
    }

    public static Duration positiveDuration(String s) {
        Duration d = duration(s);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("expected a positive ISO-8601 duration such as PT30S, PT5M or P30D");
        }
        return d;
    }

    /** Whole seconds from a second to an hour: the latest writer's slots are a second long. */
    static Duration latestInterval(String s) {
        Duration d = duration(s);
        if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofHours(1)) > 0 || d.toNanosPart() != 0) {
            throw new IllegalArgumentException("expected whole seconds from PT1S to PT1H, such as PT1S, PT30S or PT1M");
        }
        return d;
    }

    static Duration nonNegativeDuration(String s) {
        Duration d = duration(s);
        if (d.isNegative()) {
            throw new IllegalArgumentException("expected a duration >= PT0S such as PT0S, PT30S or PT5M");
        }
        return d;
    }

    static Instant instant(String s) {
        try {
            return java.time.OffsetDateTime.parse(s).toInstant();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected an ISO-8601 instant such as 2026-11-22T00:00:00Z");
        }
    }

    static ZoneId zone(String s) {
        try {
            return ZoneId.of(s);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected a zone id such as UTC or Europe/Berlin");
        }
    }

    static URI endpoint(String s) {
        try {
            URI uri = new URI(s);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return uri;
            }
        } catch (java.net.URISyntaxException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("expected an http(s) URL such as http://127.0.0.1:8000");
    }

    static String region(String s) {
        if (s.matches("[a-z]{2}(-[a-z]+)+-\\d+")) {
            return s;
        }
        throw new IllegalArgumentException("expected an AWS region such as us-east-1 or eu-west-1");
    }

    static String prefix(String s) {
        if (TableNaming.PREFIX.matcher(s).matches()) {
            return s;
        }
        throw new IllegalArgumentException("expected 1-200 characters of [A-Za-z0-9_.-]");
    }

    static String streamArn(String s) {
        if (s.matches("arn:aws[a-z-]*:kinesis:[a-z0-9-]+:\\d{12}:stream/[A-Za-z0-9_.-]{1,128}")) {
            return s;
        }
        throw new IllegalArgumentException(
                "expected a Kinesis stream ARN such as arn:aws:kinesis:us-east-1:123456789012:stream/readings");
    }

    /** A Flink filesystem URI with a scheme and a bucket or absolute path; without a trailing slash. */
    static String archivePath(String s) {
        try {
            URI uri = new URI(s);
            boolean located = uri.getAuthority() != null
                    || (uri.getPath() != null && uri.getPath().startsWith("/"));
            if (uri.getScheme() != null && located && uri.getQuery() == null && uri.getFragment() == null) {
                return s.replaceAll("/+$", "");
            }
        } catch (java.net.URISyntaxException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(
                "expected a filesystem URI such as s3://bucket/prefix or file:///var/archive");
    }

    static String nonEmpty(String s) {
        if (!s.isEmpty()) {
            return s;
        }
        throw new IllegalArgumentException("expected a non-empty value");
    }
}
