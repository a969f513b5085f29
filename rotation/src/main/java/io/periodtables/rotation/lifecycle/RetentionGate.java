package io.periodtables.rotation.lifecycle;

import io.periodtables.core.period.Period;
import java.io.IOException;
import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What retention asks before it deletes an expired table: whether the table's period is kept
 * elsewhere (archived). The rotation knows nothing of the archive itself; the job passes a gate
 * through {@link io.periodtables.rotation.Rotation.Builder#retentionGate
 * Rotation.Builder#retentionGate} when it archives. A period once archived stays
 * archived, so the rotation asks again only for periods that were not yet.
 */
@PublicEvolving
public interface RetentionGate extends Serializable {

    /**
     * True when {@code period}'s table may be deleted. Called off the operator's thread.
     *
     * @throws IOException when it cannot tell; the table is then kept and asked about again later
     */
    boolean archived(Period period) throws IOException;

    /** Where {@link #archived} looks for {@code period}, for the log (for example a marker's path). */
    String where(Period period);
}
