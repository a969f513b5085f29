package io.periodtables.rotation;

import io.periodtables.conf.Capacity;

import java.util.Map;

/** What {@link TableCreator} creates: a name, its billing and capacity, its tags, and whether TTL is on. */
record TableSpec(String name, Capacity capacity, Map<String, String> tags, boolean ttl) {
    TableSpec {
        tags = Map.copyOf(tags);
    }
}
