package io.periodtables.job.reliability;

import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The check every reliability case ends with: every valid reading is in its period table, the
 * late table or the rejected table exactly once (by key), every rejection is in the rejected
 * table, and every item equals the expected one, attribute for attribute. Compares the whole
 * prefix as a set of (table, pk, sk, attributes); fails with what is missing, doubled,
 * unexpected or different.
 */
final class ExactlyOnceCheck {
    /** Slack for {@code arrivedAt} against the test's clock readings around the run. */
    private static final Duration CLOCK_SLACK = Duration.ofSeconds(2);

    private static final int SHOWN = 15;

    private ExactlyOnceCheck() {}

    /**
     * Asserts that {@code actual} holds exactly {@code expected}; {@code start} and {@code end}
     * bound the run (the rejections' {@code arrivedAt}).
     */
    static void assertExactlyOnce(ExpectedTables expected, TableSnapshot actual, Instant start, Instant end) {
        List<String> problems = new ArrayList<>();
        TableNaming naming = expected.naming();
        Set<String> lateMonths = expected.lateTables();
        for (String lateTable : actual.lateTables()) {
            if (!lateMonths.contains(lateTable)) {
                problems.add("late table " + lateTable
                        + " is not of the months of the watermarks that made readings late " + lateMonths);
            }
        }
        doubled(actual, naming, problems);

        Map<ItemRef, Map<String, AttributeValue>> compared = new TreeMap<>();
        actual.items()
                .forEach((ref, item) -> compared.put(ref, withoutRunTime(ref, item, expected, start, end, problems)));
        Map<ItemRef, Map<String, AttributeValue>> want = new TreeMap<>();
        expected.items().forEach((ref, item) -> {
            Map<String, AttributeValue> copy = new TreeMap<>(Attributes.canonical(item));
            if (expected.reasonPatterns().containsKey(ref)) {
                copy.remove("reason");
            }

            want.put(ref, copy);
        });

        Set<ItemRef> missing = new TreeSet<>(want.keySet());
        missing.removeAll(compared.keySet());
        Set<ItemRef> unexpected = new TreeSet<>(compared.keySet());
        unexpected.removeAll(want.keySet());
        refusedByDynamoDb(expected, compared, unexpected, problems);
        List<String> different = new ArrayList<>();
        want.forEach((ref, item) -> {
            Map<String, AttributeValue> got = compared.get(ref);
            boolean anAlternative = expected.alternatives().getOrDefault(ref, List.of()).stream()
                    .anyMatch(version -> Attributes.canonical(version).equals(got));
            if (got != null && !got.equals(item) && !anAlternative) {
                different.add(ref + "\n      expected " + item + "\n      actual   " + got);
            }
        });
        report("missing", missing, problems);
        report("unexpected", unexpected, problems);
        report("different", different, problems);
        if (!problems.isEmpty()) {
            throw new AssertionError(
                    "Tables of prefix '" + naming.prefix() + "' do not hold exactly the expected items (" + want.size()
                            + " expected, " + compared.size() + " found):\n  " + String.join("\n  ", problems));
        }
    }

    /**
     * Readings DynamoDB refuses have no predictable rejected-item key (the sink hashes the item
     * it rendered): they are found among the unexpected dynamodb-validation items by the pk, sk
     * and attributes in their raw, and by their table in the origin.
     */
    private static void refusedByDynamoDb(
            ExpectedTables expected,
            Map<ItemRef, Map<String, AttributeValue>> actual,
            Set<ItemRef> unexpected,
            List<String> problems) {
        Map<ItemRef, Map<String, AttributeValue>> refused = new TreeMap<>(expected.refusedByDynamoDb());
        for (ItemRef ref : new ArrayList<>(unexpected)) {
            Map<String, AttributeValue> item = actual.get(ref);
            if (!ref.pk().startsWith("dynamodb-validation#")
                    || item.get("raw") == null
                    || item.get("raw").s() == null) {
                continue;
            }
            Map<String, AttributeValue> rendered =
                    Attributes.ofJsonObject(item.get("raw").s());
            ItemRef wouldBe = new ItemRef(
                    item.get("origin").s(),
                    rendered.get("pk").s(),
                    rendered.get("sk").s());
            if (expected.lateTables().contains(wouldBe.table())) {
                wouldBe = new ItemRef(ExpectedTables.LATE, wouldBe.pk(), wouldBe.sk());
            }
            if (Attributes.canonical(rendered).equals(Attributes.canonical(refused.getOrDefault(wouldBe, Map.of())))) {
                refused.remove(wouldBe);
                unexpected.remove(ref);
            }
        }
        report("missing as dynamodb-validation rejections", refused.keySet(), problems);
    }

    /** A reading's key in two tables (period and late, or two periods) is a reading stored twice. */
    private static void doubled(TableSnapshot actual, TableNaming naming, List<String> problems) {
        Map<List<String>, List<String>> tablesByKey =
                new TreeMap<>((a, b) -> (a.get(0) + '\u0000' + a.get(1)).compareTo(b.get(0) + '\u0000' + b.get(1)));
        actual.items().keySet().stream()
                .filter(ref -> !ref.table().equals(naming.rejectedTable()))
                .forEach(ref -> tablesByKey
                        .computeIfAbsent(List.of(ref.pk(), ref.sk()), k -> new ArrayList<>())
                        .add(ref.table()));
        List<String> doubles = new ArrayList<>();
        tablesByKey.forEach((key, tables) -> {
            if (tables.size() > 1) {
                doubles.add(key + " in " + tables);
            }
        });
        report("stored twice", doubles, problems);
    }

    /** The item without what a run decides (arrivedAt; the sink's own messages), checked here. */
    private static Map<String, AttributeValue> withoutRunTime(
            ItemRef ref,
            Map<String, AttributeValue> item,
            ExpectedTables expected,
            Instant start,
            Instant end,
            List<String> problems) {
        if (!ref.table().equals(expected.naming().rejectedTable())) {
            return item;
        }
        Map<String, AttributeValue> rest = new TreeMap<>(item);
        AttributeValue arrivedAt = rest.remove("arrivedAt");
        if (arrivedAt == null || arrivedAt.s() == null) {
            problems.add(ref + " has no arrivedAt");
        } else {
            Instant arrived = Instant.parse(arrivedAt.s());
            if (arrived.isBefore(start.minus(CLOCK_SLACK)) || arrived.isAfter(end.plus(CLOCK_SLACK))) {
                problems.add(ref + " arrivedAt " + arrived + " is outside the run " + start + " .. " + end);
            }
        }
        Pattern reason = expected.reasonPatterns().get(ref);
        if (reason != null) {
            AttributeValue message = rest.remove("reason");
            if (message == null
                    || message.s() == null
                    || !reason.matcher(message.s()).matches()) {
                problems.add(ref + " reason " + message + " does not match " + reason);
            }
        }
        return rest;
    }

    private static void report(String what, java.util.Collection<?> found, List<String> problems) {
        if (found.isEmpty()) {
            return;
        }
        StringBuilder line = new StringBuilder(found.size() + " " + what + ":");
        found.stream().limit(SHOWN).forEach(x -> line.append("\n    ").append(abbreviate(String.valueOf(x))));
        if (found.size() > SHOWN) {
            line.append("\n    ...");
        }
        problems.add(line.toString());
    }

    private static String abbreviate(String s) {
        return s.length() <= 600 ? s : s.substring(0, 600) + "...";
    }
}
