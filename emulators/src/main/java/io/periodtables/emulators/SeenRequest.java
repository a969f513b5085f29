package io.periodtables.emulators;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One API call seen by {@link DynamoDbFaults}: when it was sent, which operation, the tables it
 * names, the fault injected into it, if any, and whether DynamoDB itself throttled it (writes
 * held back as UnprocessedItems, or ProvisionedThroughputExceededException).
 */
public record SeenRequest(
        Instant at, String operation, List<String> tables, Optional<FaultKind> fault, boolean throttled) {
    public SeenRequest {
        tables = List.copyOf(tables);
    }

    SeenRequest throttledByDynamoDb() {
        return new SeenRequest(at, operation, tables, fault, true);
    }
}
