'use strict'
// GetRecords and GetShardIterator, per shard, as Kinesis's documentation states them (docs/DESIGN.md
// quotes each sentence):
//
// - "Each shard can support up to five read transactions per second." (quotas page): at most 5
//   GetRecords calls a shard in any second, whoever makes them: "the limits are shared by all
//   consumers of the stream" (each classic consumer application reads the same shards).
// - "Each shard can support up to a maximum total data read rate of 2 MiB per second via
//   GetRecords. If a call to GetRecords returns 10 MiB, subsequent calls made within the next 5
//   seconds throw an exception." (quotas page); "If there is insufficient provisioned throughput on
//   the stream, subsequent calls made within the next 1 second throw
//   ProvisionedThroughputExceededException." (API reference, GetRecords): a call is served whatever
//   its size when the shard is free; what it returned then holds the shard's reads for
//   bytes / 2 MiB seconds (10 MiB: 5 s; 2 MiB: 1 s). No saved-up allowance: the documented 5 s
//   after 10 MiB leave none.
// - "GetShardIterator has a limit of five transactions per second per account per open shard."
//   (API reference, GetShardIterator)
//
// Other consumer applications of the stream, declared by a test (otherConsumers), each poll every
// shard once a second and keep up with it: each takes one of the shard's 5 calls a second and reads
// every byte put into the shard (charged to the shard's read rate when the bytes are put).

const { SlidingSecond, SECOND_MS } = require('./window')

const CALLS_PER_SECOND = 5
const READ_BYTES_PER_SECOND = 2 * 1024 * 1024
const ITERATORS_PER_SECOND = 5
/** Other consumers take a call each a second; 5 would leave the stream's own readers none. */
const MAX_OTHER_CONSUMERS = CALLS_PER_SECOND - 1

class ShardReads {
  constructor() {
    this.calls = new SlidingSecond()
    this.iterators = new SlidingSecond()
    this.freeAt = 0 // reads are held until this instant by the bytes returned before
  }

  /** Why a GetRecords call at t is refused ('calls' or 'bytes'), or null when it is served. */
  admitGetRecords(t, others) {
    if (!this.calls.fits(t, 1, 0, CALLS_PER_SECOND - others)) return 'calls'
    if (t < this.freeAt) return 'bytes'
    this.calls.add(t, 1, 0)
    return null
  }

  /** Charges the bytes a served call returned (or other consumers read): they hold the next reads. */
  charge(t, bytes) {
    this.freeAt = Math.max(this.freeAt, t) + bytes * SECOND_MS / READ_BYTES_PER_SECOND
  }

  admitGetShardIterator(t) {
    if (!this.iterators.fits(t, 1, 0, ITERATORS_PER_SECOND)) return false
    this.iterators.add(t, 1, 0)
    return true
  }
}

/** The reads of every shard, by "stream/shardId". */
class Reads {
  constructor() {
    this.shards = new Map()
    this.others = new Map() // stream name -> other consumer applications
  }

  shard(stream, shardId) {
    const key = stream + '/' + shardId
    let s = this.shards.get(key)
    if (!s) this.shards.set(key, (s = new ShardReads()))
    return s
  }

  otherConsumers(stream, n) {
    if (!(n >= 0 && n <= MAX_OTHER_CONSUMERS && Number.isInteger(n))) {
      throw new Error('otherConsumers of ' + stream + ' must be 0 to ' + MAX_OTHER_CONSUMERS + ' (each takes one of a '
        + "shard's " + CALLS_PER_SECOND + ' GetRecords calls a second), not ' + n)
    }
    if (n === 0) this.others.delete(stream)
    else this.others.set(stream, n)
  }

  othersOf(stream) {
    return this.others.get(stream) || 0
  }

  /** Bytes put into a shard at t: each other consumer reads them too. */
  put(stream, shardId, t, bytes) {
    const n = this.othersOf(stream)
    if (n > 0 && bytes > 0) this.shard(stream, shardId).charge(t, n * bytes)
  }

  reset() {
    this.shards.clear()
    this.others.clear()
  }
}

module.exports = { Reads, CALLS_PER_SECOND, READ_BYTES_PER_SECOND, ITERATORS_PER_SECOND, MAX_OTHER_CONSUMERS }
