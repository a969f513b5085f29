package io.periodtables.rotation.operator;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.rotation.controlplane.TableManagerSettings;
import io.periodtables.rotation.lifecycle.RetentionGate;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;

/**
 * Everything the rotation operator is built from; serializable, travels with the job graph. {@code retentionGate} may
 * be null.
 */
public record RotationOptions(
        PeriodTablesConfig config,
        DynamoDbClients clients,
        TableManagerSettings settings,
        Duration reconcileInterval,
        Duration finishTimeout,
        RetentionGate retentionGate,
        List<String> writerGroups,
        String writerRun)
        implements Serializable {}
