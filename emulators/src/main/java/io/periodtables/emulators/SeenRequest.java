package io.periodtables.emulators;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One API call seen by {@link DynamoDbFaults}: when, which operation, the tables it names, and
 * the fault injected into it, if any.
 */
public record SeenRequest(Instant at, String operation, List<String> tables, Optional<FaultKind> fault) {
    public SeenRequest {
        tables = List.copyOf(tables);
    }
}
