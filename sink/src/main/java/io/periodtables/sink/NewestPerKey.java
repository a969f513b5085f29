package io.periodtables.sink;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Removes entries for the same table and item key from a batch, because DynamoDB rejects a
 * whole {@code BatchWriteItem} that names one key twice. The later entry of a batch is the newer
 * one (the writer appends new entries and puts retried ones in front), so it is the one kept.
 * The key is a record of the three strings, never a joined string that two keys could share.
 */
final class NewestPerKey {

    private NewestPerKey() {}

    static List<TableWriteEntry> of(List<TableWriteEntry> batch) {
        Set<TableWriteEntry.EntryKey> keys = new HashSet<>(batch.size() * 2);
        for (TableWriteEntry entry : batch) {
            if (!keys.add(entry.key())) {
                return withoutOlderVersions(batch); // rare: the same key twice within one batch
            }
        }
        return batch;
    }

    private static List<TableWriteEntry> withoutOlderVersions(List<TableWriteEntry> batch) {
        Map<TableWriteEntry.EntryKey, TableWriteEntry> newest = new LinkedHashMap<>(batch.size() * 2);
        for (TableWriteEntry entry : batch) {
            TableWriteEntry.EntryKey key = entry.key();
            // remove first so the kept entry takes the position of the newest one
            newest.remove(key);
            newest.put(key, entry);
        }
        return new ArrayList<>(newest.values());
    }
}
