#!/usr/bin/env node
// Starts kinesalite (the pinned Kinesis emulator) behind period-tables' Kinesis fidelity layer, for
// tests and the local run.
//
//   node kinesalite.js --port <port> [--host 127.0.0.1] [--limits all|none|a,b] [--shardLimit 20000]
//                      [--createStreamMs <ms>] [--updateStreamMs <ms>] [other kinesalite options]
//
// With no flag but --port this is Kinesis as its documentation describes it (docs/DESIGN.md quotes
// the sentence each rule follows, kinesis/*.js holds one rule a file); a caller that wants less says
// so with a flag.
//
//   filled in (always): StreamName from StreamARN in request bodies (kinesalite 3.3.3 predates
//     StreamARN; Flink's KinesisStreamsSource addresses streams by ARN only), JSON and CBOR;
//     UpdateShardCount (UNIFORM_SCALING, from kinesalite's SplitShard and MergeShards, the stream
//     UPDATING meanwhile); kinesalite runs on the layer's clock, so that its 5-minute shard iterator
//     expiry and its retention follow advanceClock / stopClock; the account's shard quota 20,000
//     (kinesalite's default is 10).
//   GetRecords returns at most 10 MiB (always; kinesalite returns up to its Limit whatever the size),
//     and how far behind the tip its caller is (MillisBehindLatest; kinesalite answers 0).
//   limits (on unless --limits says otherwise, switchable at run time), per shard:
//     reads      GetRecords: 5 calls a second, shared by every caller and by the declared other
//                consumer applications of the stream; 2 MiB a second: what a call returned holds
//                the shard's next calls for bytes / 2 MiB s (10 MiB: 5 s)
//     iterators  GetShardIterator: 5 calls a second
//     writes     PutRecord / PutRecords: 1,000 records and 1 MiB a second (data + partition key);
//                PutRecords answers the records beyond with ErrorCode
//                ProvisionedThroughputExceededException, PutRecord fails whole
//     scaling    UpdateShardCount: at most 10 a rolling 24 h per stream, at most double and at
//                least half the open shards (LimitExceededException)
//   Refused calls answer HTTP 400 {"__type":"ProvisionedThroughputExceededException","message":
//   "Rate exceeded for shard shardId-000000000000 in stream S under account 000000000000."}.
//
// Control (tests): POST /__fidelity with a JSON body {"limits": [...], "otherConsumers":
// {"stream": "S", "count": n}, "advanceClockMs": n, "stopClock": true|false, "reset": true}; GET
// /__fidelity reports the settings with the counters of what the layer served and refused.
// The process exits when its standard input closes, so it never outlives the JVM that started it.
// Listens on 127.0.0.1 only, and keeps idle connections longer than the SDK's 60 s.
'use strict'

process.env.AWS_ACCOUNT_ID = process.env.AWS_ACCOUNT_ID || '000000000000'
process.env.AWS_REGION = process.env.AWS_REGION || 'us-east-1'

const crypto = require('crypto')
const { Readable } = require('stream')
const argv = require('minimist')(process.argv.slice(2), { string: ['limits', 'host'] })
const cbor = require('cbor')
const { Reads, MAX_OTHER_CONSUMERS } = require('./kinesis/reads')
const { Writes, hashKeyOf, shardFor, sizeOf } = require('./kinesis/writes')
const resharding = require('./kinesis/resharding')
const layer = require('./layer')

const AMZ_CBOR = 'application/x-amz-cbor-1.1'
const AMZ_JSON = 'application/x-amz-json-1.1'
const STREAM_IN_ARN = /^arn:[^:]+:kinesis:[^:]*:[^:]*:stream\/(.+)$/
const ALL_LIMITS = ['reads', 'iterators', 'writes', 'scaling']
const ACCOUNT = process.env.AWS_ACCOUNT_ID
const THROTTLED = 'ProvisionedThroughputExceededException'
const MAX_GET_RECORDS_BYTES = 10 * 1024 * 1024

if (!argv.port && argv.port !== 0) {
  console.error('usage: node kinesalite.js --port <port> [--host 127.0.0.1] [--limits all|none|a,b] [kinesalite options]')
  process.exit(2)
}
const host = argv.host || '127.0.0.1'

// The layer's clock, which kinesalite reads too (sequence numbers, iterator expiry, retention).
const realNow = Date.now
const clock = { offsetMs: 0, stoppedAt: null }
function now() {
  return clock.stoppedAt === null ? realNow() + clock.offsetMs : clock.stoppedAt
}
Date.now = now

// The store kinesalite builds, captured so that the layer can read streams and reshard them.
const kinesaliteDb = require('kinesalite/db')
let store
const createStore = kinesaliteDb.create
kinesaliteDb.create = (options) => (store = createStore(options))
const kinesaliteOptions = Object.assign({ shardLimit: 20000 }, argv)
delete kinesaliteOptions.limits
const server = require('kinesalite')(kinesaliteOptions)
const kinesaliteHandler = server.listeners('request')[0]
server.removeAllListeners('request')
const splitShard = require('kinesalite/actions/splitShard')
const mergeShards = require('kinesalite/actions/mergeShards')

const settings = { limits: new Set(parseLimits(argv.limits)) }
const reads = new Reads()
const writes = new Writes()
const scaling = new Map() // stream name -> true while an UpdateShardCount runs
const scalings = new Map() // stream name -> instants of its UpdateShardCounts (the 24 h limit)
const counters = newCounters()
// What was refused, by stream, written to standard output every 5 s ("REFUSED <stream> <what>: <n>").
const note = layer.refusalLog()

function newCounters() {
  return { getRecords: 0, getRecordsBytes: 0, refusedGetRecords: 0, refusedGetRecordsByCalls: 0,
    refusedGetRecordsByBytes: 0, getShardIterator: 0, refusedGetShardIterator: 0, putRecords: 0, putBytes: 0,
    refusedRecords: 0, refusedPutRecord: 0, refusedScaling: 0 }
}


function parseLimits(text) {
  return layer.parseLimits(text, ALL_LIMITS)
}

function on(limit) {
  return settings.limits.has(limit)
}

// ---------------------------------------------------------------------------------------------
// HTTP

server.keepAliveTimeout = 75 * 1000 // above the SDK's 60 s idle time, so the client closes first
server.headersTimeout = 76 * 1000
server.on('request', (req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => handle(req, res, Buffer.concat(chunks)))
})

server.listen(argv.port, host, () => {
  const address = server.address()
  console.log('Listening at http://%s:%s', address.address, address.port)
  console.log('LIMITS ' + ([...settings.limits].join(',') || 'none'))
})

process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
process.stdin.resume()

function handle(req, res, raw) {
  if (req.url.startsWith('/__fidelity')) return control(req, res, raw)
  const isCbor = (req.headers['content-type'] || '').split(';')[0].trim() === AMZ_CBOR
  const data = decode(raw, isCbor)
  if (data == null || typeof data !== 'object') return kinesaliteHandler(replay(req, raw), res)
  let body = raw
  if (data.StreamName == null && typeof data.StreamARN === 'string') {
    const match = STREAM_IN_ARN.exec(data.StreamARN)
    if (match) {
      data.StreamName = match[1]
      body = encode(data, isCbor)
    }
  }
  const operation = (req.headers['x-amz-target'] || '').split('.')[1]
  const rule = RULES[operation]
  if (!rule) return kinesaliteHandler(replay(req, body), res)
  const call = { req, data, isCbor, body }
  Promise.resolve()
    .then(() => rule(call))
    .then((answer) => (answer === undefined ? kinesaliteHandler(replay(req, body), res) : send(res, answer, isCbor)))
    .catch((e) => {
      console.error(e && e.stack || e)
      send(res, { status: 500, data: { __type: 'InternalFailure', message: 'fidelity layer: ' + e } }, isCbor)
    })
}

function decode(raw, isCbor) {
  if (raw.length === 0) return null
  try {
    return isCbor ? cbor.Decoder.decodeFirstSync(raw) : JSON.parse(raw.toString('utf8'))
  } catch (e) {
    return null // kinesalite answers the malformed body as Kinesis would
  }
}

function encode(data, isCbor) {
  return isCbor ? cbor.Encoder.encodeOne(data) : Buffer.from(JSON.stringify(data), 'utf8')
}

/** A request stand-in that replays the (possibly rewritten) body to kinesalite's handler. */
function replay(req, body) {
  const copy = Readable.from(body.length ? [body] : [])
  copy.headers = Object.assign({}, req.headers, { 'content-length': String(body.length) })
  copy.method = req.method
  copy.url = req.url
  return copy
}

/** Runs the call (its data maybe changed) through kinesalite and returns { status, data } instead of sending it. */
function through(call, data) {
  const body = data === undefined ? call.body : encode(data, call.isCbor)
  return new Promise((resolve) => {
    const chunks = []
    const headers = {}
    kinesaliteHandler(replay(call.req, body), {
      statusCode: 200,
      setHeader(name, value) { headers[name.toLowerCase()] = value },
      getHeader(name) { return headers[name.toLowerCase()] },
      end(chunk) {
        if (chunk) chunks.push(Buffer.from(chunk))
        const out = Buffer.concat(chunks)
        resolve({ status: this.statusCode, data: out.length ? decode(out, call.isCbor) : null })
      },
    })
  })
}

function send(res, answer, isCbor) {
  const body = answer.data == null ? Buffer.alloc(0) : encode(answer.data, isCbor)
  res.statusCode = answer.status
  res.setHeader('x-amzn-RequestId', crypto.randomUUID())
  res.setHeader('Content-Type', isCbor ? AMZ_CBOR : AMZ_JSON)
  res.setHeader('Content-Length', body.length)
  res.end(body)
}

function error(type, message) {
  return { status: 400, data: { __type: type, message } }
}

/** "Rate exceeded for shard shardId-000000000000 in stream S under account 000000000000." */
function rateExceeded(stream, shardId) {
  return 'Rate exceeded for shard ' + shardId + ' in stream ' + stream + ' under account ' + ACCOUNT + '.'
}

function streamOf(name) {
  return new Promise((resolve) => store.getStream(name, (err, stream) => resolve(err ? null : stream)))
}

/** A blob's length in bytes: a Buffer (CBOR) or base64 text (JSON). */
function blobLength(blob) {
  if (blob == null) return 0
  return Buffer.isBuffer(blob) ? blob.length : Buffer.byteLength(String(blob), 'base64')
}

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

// ---------------------------------------------------------------------------------------------
// The rules, by operation

const RULES = {
  async GetRecords(call) {
    const target = iteratorTarget(call.data.ShardIterator)
    if (!target) return undefined
    const t = now()
    const shard = reads.shard(target.stream, target.shardId)
    if (on('reads')) {
      const reason = shard.admitGetRecords(t, reads.othersOf(target.stream))
      if (reason) {
        counters.refusedGetRecords++
        counters[reason === 'calls' ? 'refusedGetRecordsByCalls' : 'refusedGetRecordsByBytes']++
        note(target.stream, 'GetRecords ' + target.shardId + ' (' + reason + ')')
        return error(THROTTLED, rateExceeded(target.stream, target.shardId))
      }
    }
    const answer = await through(call)
    if (answer.status === 200 && answer.data) {
      const bytes = atMostTenMiB(answer.data, target)
      await behindLatest(answer.data, t)
      shard.charge(t, bytes)
      counters.getRecords++
      counters.getRecordsBytes += bytes
    }
    return answer
  },

  async GetShardIterator(call) {
    const stream = call.data.StreamName
    let shardId
    try {
      shardId = kinesaliteDb.resolveShardId(call.data.ShardId).shardId
    } catch (e) {
      return undefined
    }
    if (on('iterators') && stream && !reads.shard(stream, shardId).admitGetShardIterator(now())) {
      counters.refusedGetShardIterator++
      note(stream, 'GetShardIterator ' + shardId)
      return error(THROTTLED, rateExceeded(stream, shardId))
    }
    counters.getShardIterator++
    return undefined
  },

  async PutRecord(call) {
    const stream = await streamOf(call.data.StreamName)
    if (!stream || call.data.PartitionKey == null) return undefined
    const t = now()
    const shard = shardFor(stream.Shards, hashKeyOf(call.data))
    if (!shard) return undefined
    const bytes = sizeOf(call.data, blobLength(call.data.Data))
    if (on('writes') && !writes.admit(stream.StreamName, shard.ShardId, t, bytes)) {
      counters.refusedPutRecord++
      counters.refusedRecords++
      note(stream.StreamName, 'PutRecord ' + shard.ShardId)
      return error(THROTTLED, rateExceeded(stream.StreamName, shard.ShardId))
    }
    const answer = await through(call)
    if (answer.status === 200) {
      counters.putRecords++
      counters.putBytes += bytes
      reads.put(stream.StreamName, shard.ShardId, t, bytes)
    }
    return answer
  },

  async PutRecords(call) {
    const records = call.data.Records
    if (!Array.isArray(records) || records.length === 0 || records.length > 500) return undefined
    const stream = await streamOf(call.data.StreamName)
    if (!stream) return undefined
    const t = now()
    const admitted = []
    const results = new Array(records.length)
    const targets = new Array(records.length)
    for (let i = 0; i < records.length; i++) {
      const record = records[i]
      if (record == null || record.PartitionKey == null) return undefined // kinesalite refuses the request
      const shard = shardFor(stream.Shards, hashKeyOf(record))
      if (!shard) return undefined
      const bytes = sizeOf(record, blobLength(record.Data))
      targets[i] = { shardId: shard.ShardId, bytes }
      if (on('writes') && !writes.admit(stream.StreamName, shard.ShardId, t, bytes)) {
        results[i] = { ErrorCode: THROTTLED, ErrorMessage: rateExceeded(stream.StreamName, shard.ShardId) }
        counters.refusedRecords++
        note(stream.StreamName, 'PutRecords ' + shard.ShardId)
      } else {
        admitted.push(i)
      }
    }
    const failed = records.length - admitted.length
    let answer = { status: 200, data: { FailedRecordCount: failed, Records: results } }
    if (admitted.length > 0) {
      answer = await through(call, failed === 0 ? undefined
        : Object.assign({}, call.data, { Records: admitted.map((i) => records[i]) }))
      if (answer.status !== 200) return answer
      const served = answer.data.Records || []
      admitted.forEach((i, k) => {
        results[i] = served[k]
        if (served[k] && !served[k].ErrorCode) {
          counters.putRecords++
          counters.putBytes += targets[i].bytes
          reads.put(stream.StreamName, targets[i].shardId, t, targets[i].bytes)
        }
      })
      answer.data.Records = results
      answer.data.FailedRecordCount = results.filter((r) => r.ErrorCode).length
    }
    return answer
  },

  async UpdateShardCount(call) {
    const name = call.data.StreamName
    const count = call.data.TargetShardCount
    if (typeof name !== 'string' || !Number.isInteger(count) || count < 1) {
      return error('ValidationException', '1 validation error detected: Value at \'targetShardCount\' failed to '
        + 'satisfy constraint: Member must have value greater than or equal to 1')
    }
    if (call.data.ScalingType !== 'UNIFORM_SCALING') {
      return error('ValidationException', '1 validation error detected: Value \'' + call.data.ScalingType
        + '\' at \'scalingType\' failed to satisfy constraint: Member must satisfy enum value set: [UNIFORM_SCALING]')
    }
    const stream = await streamOf(name)
    if (!stream) return error('ResourceNotFoundException', 'Stream ' + name + ' under account ' + ACCOUNT + ' not found.')
    if (stream.StreamStatus !== 'ACTIVE' || scaling.has(name)) return notActive(name, 'UPDATING')
    const open = stream.Shards.filter((s) => s.SequenceNumberRange.EndingSequenceNumber == null).length
    const t = now()
    const history = scalings.get(name) || []
    const refused = on('scaling') ? resharding.refusal(open, count, history, t) : null
    if (refused) {
      counters.refusedScaling++
      note(name, 'UpdateShardCount')
      return error('LimitExceededException', refused)
    }
    scalings.set(name, history.filter((at) => at > t - resharding.DAY_MS).concat([t]))
    scaling.set(name, true)
    scale(name, count).catch((e) => console.error('UpdateShardCount of ' + name + ' failed: ' + (e && e.stack || e)))
      .finally(() => scaling.delete(name))
    return { status: 200, data: { StreamName: name, CurrentShardCount: open, TargetShardCount: count, StreamARN: stream.StreamARN } }
  },

  async SplitShard(call) {
    return scaling.has(call.data.StreamName) ? notActive(call.data.StreamName, 'UPDATING') : undefined
  },

  async MergeShards(call) {
    return scaling.has(call.data.StreamName) ? notActive(call.data.StreamName, 'UPDATING') : undefined
  },

  async DescribeStream(call) {
    return updating(call, 'StreamDescription')
  },

  async DescribeStreamSummary(call) {
    return updating(call, 'StreamDescriptionSummary')
  },
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
 */
async function behindLatest(data, t) {
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

function notActive(name, status) {
  return error('ResourceInUseException', 'Stream ' + name + ' under account ' + ACCOUNT
    + ' not ACTIVE, instead in state ' + status)
}

/** A stream is UPDATING for the whole of an UpdateShardCount, between its splits and merges too. */
async function updating(call, field) {
  if (!scaling.has(call.data.StreamName)) return undefined
  const answer = await through(call)
  if (answer.status === 200 && answer.data && answer.data[field]) answer.data[field].StreamStatus = 'UPDATING'
  return answer
}

/** The splits and merges of an UpdateShardCount, one at a time, each once the stream is ACTIVE again. */
async function scale(name, count) {
  for (;;) {
    const stream = await activeStream(name)
    const step = resharding.nextStep(stream.Shards, count)
    if (!step) return
    await new Promise((resolve, reject) => {
      const done = (err) => (err ? reject(err) : resolve())
      if (step.split) splitShard(store, { StreamName: name, ShardToSplit: step.split, NewStartingHashKey: step.at }, done)
      else mergeShards(store, { StreamName: name, ShardToMerge: step.merge, AdjacentShardToMerge: step.adjacent }, done)
    })
  }
}

async function activeStream(name) {
  for (;;) {
    const stream = await streamOf(name)
    if (!stream) throw new Error('stream ' + name + ' is gone')
    if (stream.StreamStatus === 'ACTIVE') return stream
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

// ---------------------------------------------------------------------------------------------
// Control

function control(req, res, raw) {
  if (req.method === 'POST') {
    let change
    try {
      change = JSON.parse(raw.toString('utf8') || '{}')
    } catch (e) {
      return send(res, error('ValidationException', 'control: ' + e.message), false)
    }
    try {
      if (change.reset) {
        settings.limits = new Set(parseLimits(argv.limits))
        reads.reset()
        writes.reset()
        scalings.clear()
        Object.assign(counters, newCounters())
        clock.stoppedAt = null
      }
      if (change.limits !== undefined) {
        settings.limits = new Set(parseLimits(Array.isArray(change.limits) ? change.limits.join(',') || 'none' : change.limits))
      }
      if (change.otherConsumers !== undefined) {
        reads.otherConsumers(String(change.otherConsumers.stream), Number(change.otherConsumers.count))
      }
      if (change.advanceClockMs !== undefined) {
        const by = Number(change.advanceClockMs)
        if (!(by >= 0)) throw new Error('the clock only moves ahead, not by ' + change.advanceClockMs)
        clock.offsetMs += by
        if (clock.stoppedAt !== null) clock.stoppedAt += by
      }
      if (change.stopClock === true && clock.stoppedAt === null) clock.stoppedAt = now()
      if (change.stopClock === false) clock.stoppedAt = null // it catches up with the time it stood still
    } catch (e) {
      return send(res, error('ValidationException', 'control: ' + e.message), false)
    }
  }
  send(res, { status: 200, data: { limits: [...settings.limits], otherConsumers: Object.fromEntries(reads.others),
    maxOtherConsumers: MAX_OTHER_CONSUMERS, clockOffsetMs: clock.offsetMs, clockStopped: clock.stoppedAt !== null,
    now: now(), counters } }, false)
}
