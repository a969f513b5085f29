'use strict'
// A closed shard's end, which kinesalite lacks (it lists and serves a closed shard for ever), as
// Kinesis's documentation states it (docs/DESIGN.md quotes each sentence):
//
// - "EXPIRED: After the stream's retention period has expired, all the data records in the parent
//   shard have expired and are no longer accessible. At this point, the shard itself transitions to
//   an EXPIRED state. Calls to getStreamDescription().getShards to enumerate the shards in the
//   stream do not include EXPIRED shards in the list shards returned." (developer guide, "Data
//   Routing, Data Persistence, and Shard State after a Reshard"); "This action does not list expired
//   shards." (API reference, ListShards): a closed shard expires once the stream's retention has
//   passed since it closed (the time of its ending sequence number, which is when its last record
//   can have arrived: the moment kinesalite would trim that record too). ListShards and
//   DescribeStream leave it out, and GetShardIterator answers ResourceNotFoundException in
//   kinesalite's words for a shard it does not have.

const kinesaliteDb = require('kinesalite/db')

const HOUR_MS = 60 * 60 * 1000

/** Whether a shard of `stream` (kinesalite's) has expired at t. */
function expired(stream, shard, t) {
  const ending = shard.SequenceNumberRange.EndingSequenceNumber
  if (ending == null) return false
  return kinesaliteDb.parseSequence(ending).seqTime < t - stream.RetentionPeriodHours * HOUR_MS
}

/** The shards of an answer (ListShards' or DescribeStream's) less the expired ones. */
function withoutExpired(stream, shards, t) {
  return (shards || []).filter((shard) => !expired(stream, shard, t))
}

/** "Shard shardId-000000000000 in stream S under account A does not exist", as kinesalite says it. */
function notFound(streamName, shardId, account) {
  return 'Shard ' + shardId + ' in stream ' + streamName + ' under account ' + account + ' does not exist'
}

module.exports = { expired, withoutExpired, notFound }
