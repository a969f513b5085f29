package io.periodtables.conf;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.metrics.MetricGroup;

/**
 * Where period-tables registers its own metrics: a subgroup named {@value #GROUP} of the
 * operator's group. Managed Service for Apache Flink publishes custom metrics to CloudWatch
 * only from that group (and no histograms), so every counter and gauge of ours lives there.
 */
@PublicEvolving
public final class UserMetrics {

    public static final String GROUP = "kinesisanalytics";

    private UserMetrics() {}

    /** The group for our metrics under an operator's (or sink writer's) metric group. */
    public static MetricGroup of(MetricGroup operatorGroup) {
        return operatorGroup.addGroup(GROUP);
    }
}
