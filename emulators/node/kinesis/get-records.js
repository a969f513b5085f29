'use strict'
// GetRecords' answer, always (the rows "GetRecords' answer" in docs/DESIGN.md): at most 10 MiB,
// and MillisBehindLatest, which kinesalite always answers 0 for an open shard. The shard's read
// limits themselves are reads.js's.

const crypto = require('crypto')
const kinesaliteDb = require('kinesalite/db')
const { sizeOf } = require('./writes')
const { blobLength } = require('./proxy')

const MAX_GET_RECORDS_BYTES = 10 * 1024 * 1024

/** The stream and shard a shard iterator points into, as kinesalite encrypts them; null if it is not one. */
function iteratorTarget(iterator) {
  try {
    const buffer = Buffer.from(String(iterator), 'base64')
    const decipher = crypto.createDecipheriv('aes-256-cbc', kinesaliteDb.ITERATOR_PWD_KEY, kinesaliteDb.ITERATOR_PWD_IV)
    const pieces = Buffer.concat([decipher.update(buffer.slice(8)), decipher.final()]).toString('utf8').split('/')
    return pieces.length === 5 ? { stream: pieces[1], shardId: pieces[2], seq: pieces[3] } : null
  } catch (e) {
    return null
  }
}

/**
 * "GetRecords can retrieve up to 10 MiB of data per call from a single shard" (quotas page): the
 * records past 10 MiB (data and partition keys; at least one record) are left for the next call,
 * whose iterator then starts at the first of them. Returns the bytes the answer keeps.
 */
function atMostTenMiB(data, target) {
  const records = data.Records || []
  let bytes = 0
  for (let i = 0; i < records.length; i++) {
    const size = sizeOf(records[i], blobLength(records[i].Data))
    if (i > 0 && bytes + size > MAX_GET_RECORDS_BYTES) {
      data.NextShardIterator = kinesaliteDb.createShardIterator(target.stream, target.shardId, records[i].SequenceNumber)
      data.Records = records.slice(0, i)
      return bytes
    }
    bytes += size
  }
  return bytes
}

/**
 * MillisBehindLatest, which kinesalite always answers 0 for an open shard: "The number of
 * milliseconds the GetRecords response is from the tip of the stream, indicating how far behind
 * current time the consumer is. A value of zero indicates that record processing is caught up, and
 * there are no new records to process at this moment." (API reference, GetRecords): the age, on the
 * layer's clock, of the first record the answer leaves for the next call; 0 when there is none.
 * `store` is kinesalite's.
 */
async function behindLatest(store, data, t) {
  const next = data.NextShardIterator && iteratorTarget(data.NextShardIterator)
  if (!next) return
  const shardIx = kinesaliteDb.resolveShardId(next.shardId).shardIx
  const first = await new Promise((resolve) => {
    let found = null
    store.getStreamDb(next.stream).createReadStream({
      gte: kinesaliteDb.shardIxToHex(shardIx) + '/' + next.seq,
      lt: kinesaliteDb.shardIxToHex(shardIx + 1),
      limit: 1,
    }).on('data', (item) => { found = item.value })
      .on('error', () => resolve(null))
      .on('end', () => resolve(found))
  })
  data.MillisBehindLatest = first ? Math.max(0, Math.round(t - first.ApproximateArrivalTimestamp * 1000)) : 0
}

module.exports = { iteratorTarget, atMostTenMiB, behindLatest }
