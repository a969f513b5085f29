package io.periodtables.job;

import org.apache.flink.annotation.Internal;

/**
 * One input record as it left the source: its bytes and where it came from (Kinesis shard and
 * sequence number, or the generator). Lives only between the source and the parser, which are
 * chained, so it is never serialized.
 */
@Internal
public record RawRecord(byte[] data, String origin) {}
