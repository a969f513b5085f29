/**
 * The Kinesis benches: what an idle source costs (IdleKinesisBench) and how fast a backlog is read
 * under Kinesis's read limits (KinesisBackfillBench), on kinesalite.
 */
package io.periodtables.bench.kinesis;
