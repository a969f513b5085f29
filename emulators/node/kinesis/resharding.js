'use strict'
// UpdateShardCount, which kinesalite 3.3.3 lacks, built from its SplitShard and MergeShards as
// Kinesis describes it: "To update the shard count, Kinesis Data Streams performs splits or merges
// on individual shards." (API reference, UpdateShardCount), ScalingType UNIFORM_SCALING: the stream
// ends with the target count of open shards, each an equal share of the hash key space (as
// CreateStream divides it). The default limits of that page, on the layer's clock: "Scale more than
// ten times per rolling 24-hour period per stream", "Scale up to more than double your current shard
// count for a stream", "Scale down below half your current shard count for a stream" are refused
// with LimitExceededException.

const HASH_SPACE = 1n << 128n
const DAY_MS = 24 * 60 * 60 * 1000
const SCALINGS_A_DAY = 10

/** The hash key boundaries of `count` uniform shards: where shards 1..count-1 start. */
function uniformStarts(count) {
  const width = HASH_SPACE / BigInt(count)
  const starts = []
  for (let i = 1; i < count; i++) starts.push(width * BigInt(i))
  return starts
}

/**
 * The next split or merge towards `count` uniform shards, from the stream's open shards; null when
 * they are there. A split at every uniform boundary inside an open shard first, then merges of
 * adjacent open shards whose border is no uniform boundary.
 */
function nextStep(shards, count) {
  const open = shards.filter((s) => s.SequenceNumberRange.EndingSequenceNumber == null)
    .map((s) => ({ id: s.ShardId, start: BigInt(s.HashKeyRange.StartingHashKey), end: BigInt(s.HashKeyRange.EndingHashKey) }))
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
  const starts = uniformStarts(count)
  for (const s of open) {
    const inside = starts.find((b) => b > s.start + 1n && b < s.end)
    if (inside !== undefined) return { split: s.id, at: inside.toString() }
  }
  const boundaries = new Set(starts.map(String))
  for (let i = 0; i + 1 < open.length; i++) {
    const a = open[i]
    const b = open[i + 1]
    if (a.end + 1n === b.start && !boundaries.has(String(b.start))) return { merge: a.id, adjacent: b.id }
  }
  return null
}

/** Why UpdateShardCount from `current` open shards to `target` is refused, or null. `history`: the stream's past scalings (instants). */
function refusal(current, target, history, t) {
  const recent = history.filter((at) => at > t - DAY_MS).length
  if (recent >= SCALINGS_A_DAY) {
    return 'Exceeded the number of allowed scaling operations (' + SCALINGS_A_DAY + ') in a rolling 24-hour period'
  }
  if (target > 2 * current) {
    return 'UpdateShardCount cannot scale up over double your current open shard count. Current open shard count: '
      + current + ' Target shard count: ' + target
  }
  if (target * 2 < current) {
    return 'UpdateShardCount cannot scale down below half your current open shard count. Current open shard count: '
      + current + ' Target shard count: ' + target
  }
  return null
}

module.exports = { nextStep, refusal, uniformStarts, DAY_MS }
