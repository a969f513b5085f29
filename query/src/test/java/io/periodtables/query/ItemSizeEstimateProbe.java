package io.periodtables.query;

import io.periodtables.conf.PeriodTablesConfig;

import java.io.IOException;

/** Lets the item-size agreement test, which lives in the sink's package, call the estimate. */
public final class ItemSizeEstimateProbe {

    private ItemSizeEstimateProbe() {}

    public static long ofSample(String json, PeriodTablesConfig config, int shards) throws IOException {
        return ItemSizeEstimate.ofSample(json, config, shards);
    }
}
