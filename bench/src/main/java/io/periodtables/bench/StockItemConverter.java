package io.periodtables.bench;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.model.Reading;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.connector.base.sink.writer.ElementConverter;
import org.apache.flink.connector.dynamodb.sink.DynamoDbWriteRequest;
import org.apache.flink.connector.dynamodb.sink.DynamoDbWriteRequestType;

/**
 * The stock {@code DynamoDbSink}'s element converter for the benchmark: a PUT of the very item
 * {@code PeriodTableSink} builds for the reading (same keys, same payload attributes), so both
 * sinks pay the same for item building.
 */
final class StockItemConverter implements ElementConverter<Reading, DynamoDbWriteRequest> {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private transient ReadingItems items;

    StockItemConverter(PeriodTablesConfig config) {
        this.config = config;
    }

    @Override
    public DynamoDbWriteRequest apply(Reading reading, SinkWriter.Context context) {
        if (items == null) {
            items = new ReadingItems(config);
        }
        return DynamoDbWriteRequest.builder()
                .setType(DynamoDbWriteRequestType.PUT)
                .setItem(items.item(reading))
                .build();
    }
}
