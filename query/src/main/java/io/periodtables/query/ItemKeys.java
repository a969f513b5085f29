package io.periodtables.query;

/** The attribute names of the items in period and late tables (DESIGN.md, "Items in period and late tables"). */
final class ItemKeys {
    static final String PK = "pk";
    static final String SK = "sk";
    static final String TTL = "ttl";

    private ItemKeys() {}
}
