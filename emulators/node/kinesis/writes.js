'use strict'
// PutRecord and PutRecords, per shard: "Each shard can support writes up to 1,000 records per
// second, up to a maximum data write total of 1 MiB per second." (API reference, PutRecords; the
// quotas page says the same of a shard's write capacity). A record's size is its data blob and its
// partition key ("The record size limit applies to the total size of the partition key and data
// blob."). Records go to the open shard whose hash key range holds their hash key: the MD5 of the
// partition key as a 128-bit integer, or ExplicitHashKey ("An MD5 hash function is used to map
// partition keys to 128-bit integer values and to map associated data records to shards.").
// PutRecords admits what fits, record by record in request order, and answers the rest
// with ErrorCode ProvisionedThroughputExceededException; PutRecord is refused whole.

const crypto = require('crypto')
const { SlidingSecond } = require('./window')

const RECORDS_PER_SECOND = 1000
const WRITE_BYTES_PER_SECOND = 1024 * 1024

class Writes {
  constructor() {
    this.shards = new Map() // "stream/shardId" -> SlidingSecond
  }

  window(stream, shardId) {
    const key = stream + '/' + shardId
    let w = this.shards.get(key)
    if (!w) this.shards.set(key, (w = new SlidingSecond()))
    return w
  }

  /** Admits one record of `bytes` into a shard at t, or answers false. */
  admit(stream, shardId, t, bytes) {
    const w = this.window(stream, shardId)
    if (!w.fits(t, 1, bytes, RECORDS_PER_SECOND, WRITE_BYTES_PER_SECOND)) return false
    w.add(t, 1, bytes)
    return true
  }

  reset() {
    this.shards.clear()
  }
}

/** The hash key of a record: ExplicitHashKey, else the MD5 of its partition key, as a BigInt. */
function hashKeyOf(record) {
  if (record.ExplicitHashKey != null) return BigInt(record.ExplicitHashKey)
  return BigInt('0x' + crypto.createHash('md5').update(String(record.PartitionKey), 'utf8').digest('hex'))
}

/** The open shard of `shards` (as DescribeStream lists them) whose hash key range holds hashKey. */
function shardFor(shards, hashKey) {
  return shards.find((s) => s.SequenceNumberRange.EndingSequenceNumber == null
    && hashKey >= BigInt(s.HashKeyRange.StartingHashKey) && hashKey <= BigInt(s.HashKeyRange.EndingHashKey))
}

/** A record's size as the limits count it: data blob and partition key, in bytes. */
function sizeOf(record, dataBytes) {
  return dataBytes + Buffer.byteLength(String(record.PartitionKey || ''), 'utf8')
}

module.exports = { Writes, hashKeyOf, shardFor, sizeOf, RECORDS_PER_SECOND, WRITE_BYTES_PER_SECOND }
