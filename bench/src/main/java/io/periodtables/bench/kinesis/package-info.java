/**
 * The Kinesis benches: an idle stream's reads (IdleKinesisBench) and a backlog read back
 * (KinesisBackfillBench) through kinesalite.
 */
package io.periodtables.bench.kinesis;
