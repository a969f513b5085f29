package io.periodtables.query;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.archive.ArchiveRow;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code range --archive}: the readings of a table that no longer exists, from its folder in the
 * archive the job wrote (docs/archive.md), through Flink's file systems ({@code file://}; for
 * {@code s3://} Flink's S3 file system must be on the class path). The archive may hold an item
 * more than once (a reading the input carried twice); each ({@code pk}, {@code sk}) is returned
 * once, as the table held it. A folder is read whole: all devices, filtered here.
 */
final class ArchiveRanges {

    private final String path;
    private final ArchiveReader reader;
    private final TableNaming naming;
    private final boolean ttlAttribute;

    ArchiveRanges(String path, TableNaming naming, boolean ttlAttribute) {
        this.path = path;
        this.reader = new ArchiveReader(path);
        this.naming = naming;
        this.ttlAttribute = ttlAttribute;
    }

    /** The device's readings of {@code [fromMillis, toMillis)} archived for {@code period}'s table. */
    TableRead period(Period period, String deviceId, long fromMillis, long toMillis) {
        String table = naming.periodTable(period);
        try {
            if (reader.files(ArchivePartitions.period(period)) == 0 && reader.isArchived(period)) {
                return new TableRead(table, true, List.of(), 0, Optional.of(note())); // archived without readings
            }
        } catch (IOException e) {
            throw unreadable(ArchivePartitions.period(period), e);
        }
        return read(table, ArchivePartitions.period(period), deviceId, fromMillis, toMillis);
    }

    /** The same from the archive of the late table of {@code month}. */
    TableRead late(YearMonth month, String deviceId, long fromMillis, long toMillis) {
        Instant inMonth = month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        return read(naming.lateTable(inMonth), ArchivePartitions.late(inMonth), deviceId, fromMillis, toMillis);
    }

    private TableRead read(String table, String partition, String deviceId, long fromMillis, long toMillis) {
        Map<String, StoredReading> byKey = new LinkedHashMap<>();
        try {
            if (reader.files(partition) == 0) {
                return TableRead.missing(table, 0);
            }
            reader.rows(partition, row -> {
                Optional<Integer> shard = shardOf(row, deviceId);
                long eventMillis = WriteSharding.eventMillisOf(row.sk());
                if (shard.isPresent() && eventMillis >= fromMillis && eventMillis < toMillis) {
                    byKey.put(
                            row.pk() + '\u0000' + row.sk(),
                            StoredReading.of(deviceId, table, shard.get(), row.item(), ttlAttribute));
                }
            });
        } catch (IOException e) {
            throw unreadable(partition, e);
        }
        List<StoredReading> readings = new ArrayList<>(byKey.values());
        readings.sort(Comparator.comparing(StoredReading::sk));
        return new TableRead(table, true, List.copyOf(readings), 0, Optional.of(note()));
    }

    private String note() {
        return "table deleted, read from the archive " + path;
    }

    private UncheckedIOException unreadable(String partition, IOException e) {
        return new UncheckedIOException(
                "cannot read the archive " + ArchivePartitions.folder(path, partition) + ": " + e.getMessage(), e);
    }

    /** The shard of a row of {@code deviceId} ({@code pk} is the device id, or it and {@code #<shard>}). */
    private static Optional<Integer> shardOf(ArchiveRow row, String deviceId) {
        String pk = row.pk();
        if (pk.equals(deviceId)) {
            return Optional.of(0);
        }
        if (pk.length() > deviceId.length() + 1 && pk.startsWith(deviceId) && pk.charAt(deviceId.length()) == '#') {
            String suffix = pk.substring(deviceId.length() + 1);
            if (suffix.chars().allMatch(Character::isDigit) && suffix.length() < 5) {
                return Optional.of(Integer.parseInt(suffix));
            }
        }
        return Optional.empty();
    }
}
