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
//     (kinesalite's default is 10); a closed shard expires once the stream's retention has passed
//     since it closed: ListShards and DescribeStream leave it out, GetShardIterator answers
//     ResourceNotFoundException (kinesalite serves it for ever).
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

const argv = require('minimist')(process.argv.slice(2), { string: ['limits', 'host'] })
const { Reads } = require('./kinesis/reads')
const { Writes, hashKeyOf, shardFor, sizeOf } = require('./kinesis/writes')
const resharding = require('./kinesis/resharding')
const { proxy, decode, encode, replay, send, error, blobLength, AMZ_CBOR } = require('./kinesis/proxy')
const { iteratorTarget, atMostTenMiB, behindLatest } = require('./kinesis/get-records')
const { newCounters, control } = require('./kinesis/control')
const expiry = require('./kinesis/expiry')
const layer = require('./layer')

const STREAM_IN_ARN = /^arn:[^:]+:kinesis:[^:]*:[^:]*:stream\/(.+)$/
const ALL_LIMITS = ['reads', 'iterators', 'writes', 'scaling']
const ACCOUNT = process.env.AWS_ACCOUNT_ID
const THROTTLED = 'ProvisionedThroughputExceededException'

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
const { through } = proxy(kinesaliteHandler)
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

function parseLimits(text) {
  return layer.parseLimits(text, ALL_LIMITS)
}

function on(limit) {
  return settings.limits.has(limit)
}

const handleControl = control({ argv, settings, parseLimits, reads, writes, scalings, counters, clock, now })

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
  if (req.url.startsWith('/__fidelity')) return handleControl(req, res, raw)
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


/** "Rate exceeded for shard shardId-000000000000 in stream S under account 000000000000." */
function rateExceeded(stream, shardId) {
  return 'Rate exceeded for shard ' + shardId + ' in stream ' + stream + ' under account ' + ACCOUNT + '.'
}

function streamOf(name) {
  return new Promise((resolve) => store.getStream(name, (err, stream) => resolve(err ? null : stream)))
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
      await behindLatest(store, answer.data, t)
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
    const described = stream && await streamOf(stream)
    const shard = described && described.Shards.find((s) => s.ShardId === shardId)
    if (shard && expiry.expired(described, shard, now())) {
      return error('ResourceNotFoundException', expiry.notFound(stream, shardId, ACCOUNT))
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
    counters.putRecordsCalls++
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
    const answer = await updating(call, 'StreamDescription') || await through(call)
    const description = answer.status === 200 && answer.data && answer.data.StreamDescription
    if (description) {
      const stream = await streamOf(call.data.StreamName)
      if (stream) description.Shards = expiry.withoutExpired(stream, description.Shards, now())
    }
    return answer
  },

  async ListShards(call) {
    counters.listShards++
    const answer = await through(call)
    const stream = answer.status === 200 && answer.data && await streamOf(call.data.StreamName)
    if (stream) answer.data.Shards = expiry.withoutExpired(stream, answer.data.Shards, now())
    return answer
  },

  async DescribeStreamSummary(call) {
    return updating(call, 'StreamDescriptionSummary')
  },
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
