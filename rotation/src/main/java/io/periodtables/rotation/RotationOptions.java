package io.periodtables.rotation;

import io.periodtables.conf.DynamoDbClients;
import io.periodtables.conf.PeriodTablesConfig;

import java.io.Serializable;
import java.time.Duration;

/** Everything the rotation operator is built from; serializable, travels with the job graph. */
record RotationOptions(PeriodTablesConfig config, DynamoDbClients clients, TableManagerSettings settings,
        Duration guardInterval, Duration finishTimeout) implements Serializable {}
