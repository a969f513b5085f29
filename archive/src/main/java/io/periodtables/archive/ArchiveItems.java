package io.periodtables.archive;

import io.periodtables.model.Reading;
import java.io.Serializable;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The item the period-table sink stores for a reading: the archive writes exactly these, so that
 * "distinct on (pk, sk)" over the archive equals the table. The job fills it with the sink's
 * item builder; the archive does not depend on the sink.
 */
@PublicEvolving
@FunctionalInterface
public interface ArchiveItems extends Serializable {

    /** The item of {@code reading}, or {@code null} when the sink stores it as a rejection instead. */
    @Nullable
    Map<String, AttributeValue> item(Reading reading);
}
