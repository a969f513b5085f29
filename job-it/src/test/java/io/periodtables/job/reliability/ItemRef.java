package io.periodtables.job.reliability;

import java.util.Comparator;

/** Where one item lives: its table (late tables as {@link ExpectedTables#LATE}) and its key. */
record ItemRef(String table, String pk, String sk) implements Comparable<ItemRef> {
    private static final Comparator<ItemRef> ORDER =
            Comparator.comparing(ItemRef::table).thenComparing(ItemRef::pk).thenComparing(ItemRef::sk);

    @Override
    public int compareTo(ItemRef other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return table + "[" + pk + ", " + sk + "]";
    }
}
