package io.periodtables.rotation;

import org.apache.flink.annotation.PublicEvolving;

import java.util.List;

/**
 * What one retention pass did.
 *
 * @param deleted tables deleted (or found already gone) because their period ended longer ago
 *     than {@code tables.retention}
 * @param deletionProtected expired tables of ours left alone because deletion protection is on
 * @param notOurs expired-looking tables with our prefix but without our tag (or whose tags could
 *     not be read), left alone
 */
@PublicEvolving
public record RetentionReport(List<String> deleted, List<String> deletionProtected, List<String> notOurs) {

    public static final RetentionReport NOTHING = new RetentionReport(List.of(), List.of(), List.of());

    public RetentionReport {
        deleted = List.copyOf(deleted);
        deletionProtected = List.copyOf(deletionProtected);
        notOurs = List.copyOf(notOurs);
    }
}
