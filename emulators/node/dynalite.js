#!/usr/bin/env node
// Starts dynalite (the pinned DynamoDB emulator) behind period-tables' DynamoDB fidelity layer,
// for tests and the local run.
//
//   node dynalite.js --port <port> [--host 127.0.0.1] [--path <dir>] [--limits all|none|a,b]
//                    [--burst-seconds 300] [--max-tables 2500] [--create-table-ms 0]
//                    [--update-table-ms 0] [--delete-table-ms 0]
//
// dynalite answers DynamoDB's API from memory (or LevelDB with --path). The layer in front of
// it, in this process, makes it behave as DynamoDB does where the job meets a difference:
//
//   filled in (always): UpdateTimeToLive/DescribeTimeToLive with the one-change-an-hour rule;
//     Tags, SSESpecification, DeletionProtectionEnabled, TableClass, WarmThroughput and
//     OnDemandThroughput given in CreateTable (and UpdateTable) kept and reported; deletion
//     protection enforced; ItemCount and TableSizeBytes; at most 25 writes per BatchWriteItem
//     across tables; item size counted in UTF-8 bytes (400 KB); empty attribute names refused;
//     UpdateTable, UpdateTimeToLive and DeleteTable refused while the table is not ACTIVE.
//   limits (on unless --limits says otherwise, switchable at run time):
//     throughput  each provisioned table's WCU as a token bucket holding --burst-seconds of
//                 unused capacity: writes beyond it come back as UnprocessedItems, or fail with
//                 ProvisionedThroughputExceededException when nothing fits
//     decreases   4 decreases a UTC day, then one an hour after the last, at most 27
//                 (LimitExceededException); reported in DescribeTable
//     on-demand   a new on-demand table writes 4,000 units/s until warmed (WarmThroughput, or
//                 twice the peak it has served), at most its OnDemandThroughput
//     tables      at most --max-tables tables (LimitExceededException)
//
// Control (tests): POST /__fidelity with a JSON body {"limits": [...], "burstSeconds": n,
// "maxTables": n, "advanceClockMs": n, "stopClock": true|false, "reset": true} changes the
// settings (a stopped clock refills no tokens: a test's rates do not depend on its speed; reset
// starts it again); GET /__fidelity
// reports them with the counters of what the layer refused. Standard input: "stop" closes the
// listener (an outage; the data stays), "start" listens again on the same port; the process
// exits when its standard input closes, so it never outlives the JVM that started it.
// Listens on 127.0.0.1 only, and keeps idle connections longer than the SDK's 60 s.
'use strict'

process.env.AWS_ACCOUNT_ID = process.env.AWS_ACCOUNT_ID || '000000000000'
process.env.AWS_REGION = process.env.AWS_REGION || 'us-east-1'

const http = require('http')
const readline = require('readline')
const { EventEmitter } = require('events')
const crc32 = require('buffer-crc32')
const sub = require('subleveldown')
const argv = require('minimist')(process.argv.slice(2), { string: ['path', 'host', 'limits'] })

const ALL_LIMITS = ['throughput', 'decreases', 'on-demand', 'tables']
const MAX_ITEM_BYTES = 400 * 1024
const MAX_BATCH_WRITES = 25
const ON_DEMAND_NEW_TABLE_WRITES = 4000
const FREE_DECREASES = 4
const MAX_DECREASES = 27
const HOUR_MS = 3600 * 1000
const RECOUNT_SMALL = 5000
const RECOUNT_MS = 10 * 1000
const PREFIX = 'com.amazonaws.dynamodb.v20120810#'

if (!argv.port && argv.port !== 0) {
  console.error('usage: node dynalite.js --port <port> [--host 127.0.0.1] [--path <dir>] [--limits all|none|a,b]')
  process.exit(2)
}
const host = argv.host || '127.0.0.1'

// The store dynalite builds, captured so that the layer can read tables and count items.
const dynaliteDb = require('dynalite/db')
let store
const createStore = dynaliteDb.create
dynaliteDb.create = (options) => (store = createStore(options))
const dynalite = require('dynalite')(Object.assign({
  createTableMs: num(argv['create-table-ms'], 0),
  updateTableMs: num(argv['update-table-ms'], 0),
  deleteTableMs: num(argv['delete-table-ms'], 0),
}, argv.path ? { path: argv.path } : {}))
const dynaliteHandler = dynalite.listeners('request')[0]
// What dynalite does not keep (TTL, tags given at creation, table options, the decrease history); in its LevelDB with --path.
const metaDb = sub(store.db, 'period-tables-fidelity', { valueEncoding: 'json' })

const settings = {
  limits: new Set(parseLimits(argv.limits)),
  burstSeconds: num(argv['burst-seconds'], 300),
  maxTables: num(argv['max-tables'], 2500),
  clockOffsetMs: 0,
  stoppedAt: null, // a stopped clock reads this instant until it starts again
}
const counters = newCounters()
const meta = new Map() // table name -> options and TTL state (persisted in metaDb)
const buckets = new Map() // table name -> write token bucket
const counts = new Map() // table name -> { items, bytes, dirty }

function num(value, fallback) {
  return value === undefined || value === null || value === '' ? fallback : Number(value)
}

function parseLimits(text) {
  if (text === undefined || text === 'all' || text === '') return ALL_LIMITS
  if (text === 'none') return []
  const limits = String(text).split(',').map((s) => s.trim()).filter(Boolean)
  for (const limit of limits) {
    if (!ALL_LIMITS.includes(limit)) throw new Error('unknown limit ' + limit + '; known: ' + ALL_LIMITS.join(','))
  }
  return limits
}

function newCounters() {
  return { throttledWrites: 0, throttledCalls: 0, refusedDecreases: 0, refusedTables: 0, refusedTtlChanges: 0,
    refusedBatches: 0, refusedItems: 0, refusedWhileBusy: 0 }
}

function now() {
  return settings.stoppedAt === null ? Date.now() + settings.clockOffsetMs : settings.stoppedAt
}

/** Stops the clock at its instant, or lets it run again: it catches up with the time it stood still. */
function stopClock(stop) {
  if (stop && settings.stoppedAt === null) settings.stoppedAt = now()
  if (!stop) settings.stoppedAt = null
}

// ---------------------------------------------------------------------------------------------
// HTTP

const server = http.createServer(handle)
server.keepAliveTimeout = 75 * 1000 // above the SDK's 60 s idle time, so the client closes first
server.headersTimeout = 76 * 1000
server.requestTimeout = 0
const sockets = new Set()
server.on('clientError', (e, socket) => {
  console.error('client error: ' + e.message)
  if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
  else socket.destroy()
})
server.on('connection', (socket) => {
  sockets.add(socket)
  socket.on('close', () => sockets.delete(socket))
})

function handle(req, res) {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    const body = Buffer.concat(chunks)
    if (req.url.startsWith('/__fidelity')) return control(req, res, body)
    const operation = (req.headers['x-amz-target'] || '').split('.')[1]
    const rule = RULES[operation]
    let data
    if (rule) {
      try {
        data = JSON.parse(body.toString('utf8'))
      } catch (e) {
        data = undefined
      }
    }
    if (!rule || data == null || typeof data !== 'object') return forward(req, res, body)
    Promise.resolve()
      .then(() => rule(data, req))
      .then((answer) => answer === undefined ? forward(req, res, body) : send(res, answer))
      .catch((e) => {
        console.error(e && e.stack || e)
        send(res, error(500, 'InternalServerError', 'fidelity layer: ' + e, 'com.amazonaws.dynamodb.v20120810#'))
      })
  })
}

/** Hands the request, unchanged, to dynalite. */
function forward(req, res, body) {
  dynaliteHandler(replay(req, body), res)
}

/** Runs the request (its data maybe changed) through dynalite and returns { status, data } instead of sending it. */
function through(req, data) {
  return new Promise((resolve) => {
    const fake = captured(resolve)
    dynaliteHandler(replay(req, Buffer.from(JSON.stringify(data), 'utf8')), fake)
  })
}

/** An internal call to dynalite, as a client with valid-looking credentials would make it. */
function call(operation, data) {
  const req = {
    method: 'POST',
    url: '/',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.' + operation,
      'x-amz-date': '20260101T000000Z',
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, '
        + 'SignedHeaders=host, Signature=0',
    },
  }
  return through(req, data)
}

function captured(resolve) {
  const headers = {}
  return {
    statusCode: 200,
    setHeader(name, value) { headers[name.toLowerCase()] = value },
    getHeader(name) { return headers[name.toLowerCase()] },
    end(body) {
      let data = null
      if (body && body.length) {
        try {
          data = JSON.parse(body.toString())
        } catch (e) {
          data = { raw: body.toString() }
        }
      }
      resolve({ status: this.statusCode, data, headers })
    },
  }
}

function replay(req, body) {
  const copy = new EventEmitter()
  copy.headers = Object.assign({}, req.headers, { 'content-length': String(body.length) })
  copy.method = req.method
  copy.url = req.url
  setImmediate(() => {
    if (body.length) copy.emit('data', body)
    copy.emit('end')
  })
  return copy
}

function send(res, answer) {
  const body = Buffer.from(answer.data == null ? '' : JSON.stringify(answer.data), 'utf8')
  res.statusCode = answer.status
  res.setHeader('x-amzn-RequestId', 'fidelity' + Math.random().toString(36).slice(2).toUpperCase().padEnd(44, '0'))
  res.setHeader('x-amz-crc32', crc32.unsigned(body))
  res.setHeader('Content-Type', 'application/x-amz-json-1.0')
  res.setHeader('Content-Length', body.length)
  res.end(body)
}

function ok(data) {
  return { status: 200, data }
}

function error(status, type, message, prefix) {
  return { status, data: { __type: (prefix || PREFIX) + type, message } }
}

function validation(message) {
  return error(400, 'ValidationException', message, 'com.amazon.coral.validate#')
}

// ---------------------------------------------------------------------------------------------
// Table options and TTL, kept beside dynalite's tables

async function loadMeta() {
  for await (const [name, value] of iterate(metaDb)) meta.set(name, value)
}

function iterate(db) {
  const stream = db.createReadStream()
  const entries = []
  return {
    async * [Symbol.asyncIterator]() {
      await new Promise((resolve, reject) => {
        stream.on('data', (d) => entries.push([d.key, d.value]))
        stream.on('end', resolve)
        stream.on('error', reject)
      })
      yield * entries
    },
  }
}

function saveMeta(name) {
  const value = meta.get(name)
  return new Promise((resolve) => {
    const done = () => resolve()
    if (value) metaDb.put(name, value, done)
    else metaDb.del(name, done)
  })
}

function tableOf(name) {
  return new Promise((resolve) => store.getTable(name, false, (err, table) => resolve(err ? null : table)))
}

function arnOf(name) {
  return 'arn:aws:dynamodb:' + process.env.AWS_REGION + ':' + process.env.AWS_ACCOUNT_ID + ':table/' + name
}

function notFound(name) {
  return error(400, 'ResourceNotFoundException', 'Requested resource not found: Table: ' + name + ' not found')
}

/**
 * Whether DynamoDB would refuse to change the table now. dynalite flips a table to ACTIVE on a timer even when its
 * delay is 0 ms, so a status is only binding when its configured delay is above 0: with 0 ms, changes are instant.
 */
function busy(table) {
  const o = store.options
  const delay = { CREATING: o.createTableMs, UPDATING: o.updateTableMs, DELETING: o.deleteTableMs }
  return table.TableStatus !== 'ACTIVE' && (delay[table.TableStatus] === undefined || delay[table.TableStatus] > 0)
}

function inUse(name, status) {
  counters.refusedWhileBusy++
  const what = status === 'CREATING' ? 'being created' : status === 'DELETING' ? 'being deleted' : 'being updated'
  return error(400, 'ResourceInUseException', 'Attempt to change a resource which is still in use: Table is ' + what + ': ' + name)
}

/** The options DynamoDB reports and dynalite drops, added to a TableDescription. */
function describe(description) {
  if (!description) return description
  const m = meta.get(description.TableName) || {}
  const out = Object.assign({}, description)
  out.DeletionProtectionEnabled = !!m.deletionProtection
  out.TableClassSummary = { TableClass: m.tableClass || 'STANDARD' }
  if (m.sse && m.sse.Enabled) {
    out.SSEDescription = { Status: 'ENABLED', SSEType: m.sse.SSEType || 'KMS',
      KMSMasterKeyArn: m.sse.KMSMasterKeyId || 'arn:aws:kms:us-east-1:000000000000:key/aws-managed' }
  }
  if (m.warm) out.WarmThroughput = Object.assign({ Status: 'ACTIVE' }, m.warm)
  if (m.onDemand) out.OnDemandThroughput = m.onDemand
  const count = counts.get(description.TableName)
  if (count) {
    out.ItemCount = count.items
    out.TableSizeBytes = count.bytes
  }
  const bucket = buckets.get(description.TableName)
  if (out.ProvisionedThroughput && bucket) {
    const pt = Object.assign({}, out.ProvisionedThroughput)
    pt.NumberOfDecreasesToday = decreasesToday(bucket)
    if (bucket.lastDecrease) pt.LastDecreaseDateTime = bucket.lastDecrease / 1000
    else delete pt.LastDecreaseDateTime
    if (bucket.lastIncrease) pt.LastIncreaseDateTime = bucket.lastIncrease / 1000
    out.ProvisionedThroughput = pt
  }
  return out
}

/**
 * Counts a table's items and their size when it was written since the last count: at once while it
 * holds fewer than RECOUNT_SMALL items, else at most every RECOUNT_MS (DynamoDB itself refreshes
 * these about every six hours).
 */
async function count(name) {
  let entry = counts.get(name)
  if (entry && (!entry.dirty || (entry.items >= RECOUNT_SMALL && Date.now() - entry.countedAt < RECOUNT_MS))) return
  const started = Date.now()
  let items = 0
  let bytes = 0
  await new Promise((resolve) => {
    const stream = store.getItemDb(name).createValueStream()
    stream.on('data', (item) => {
      items++
      bytes += itemBytes(item)
    })
    stream.on('end', resolve)
    stream.on('error', resolve)
  })
  entry = { items, bytes, dirty: false, countedAt: Date.now(), tookMs: Date.now() - started }
  counts.set(name, entry)
}

function written(name) {
  const entry = counts.get(name)
  if (entry) entry.dirty = true
}

// ---------------------------------------------------------------------------------------------
// Item sizes as DynamoDB counts them (UTF-8)

function itemBytes(item) {
  let bytes = 0
  for (const name in item) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(item[name])
  return bytes
}

function valueBytes(value) {
  if (value == null || typeof value !== 'object') return 0
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8')
  if (value.N !== undefined) return numberBytes(value.N)
  if (value.B !== undefined) return Buffer.from(value.B, 'base64').length
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1
  if (value.SS) return value.SS.reduce((s, v) => s + Buffer.byteLength(v, 'utf8'), 0)
  if (value.NS) return value.NS.reduce((s, v) => s + numberBytes(v), 0)
  if (value.BS) return value.BS.reduce((s, v) => s + Buffer.from(v, 'base64').length, 0)
  if (value.L) return 3 + value.L.reduce((s, v) => s + 1 + valueBytes(v), 0)
  if (value.M) {
    let bytes = 3
    for (const name in value.M) bytes += 1 + Buffer.byteLength(name, 'utf8') + valueBytes(value.M[name])
    return bytes
  }
  return 0
}

function numberBytes(text) {
  const digits = String(text).replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '')
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1
}

function emptyName(item) {
  for (const name in item) {
    if (name === '') return true
    const value = item[name]
    if (value && value.M && emptyName(value.M)) return true
  }
  return false
}

function checkItem(item) {
  if (emptyName(item)) {
    return validation('One or more parameter values are not valid. A value specified for a secondary index key '
      + 'is not supported. An attribute name cannot be empty')
  }
  if (itemBytes(item) > MAX_ITEM_BYTES) {
    counters.refusedItems++
    return validation('Item size has exceeded the maximum allowed size')
  }
  return null
}

function writeUnits(item) {
  return Math.max(1, Math.ceil(itemBytes(item) / 1024))
}

// ---------------------------------------------------------------------------------------------
// Limits

function limited(name) {
  return settings.limits.has(name)
}

/** The table's write bucket: provisioned WCU, or an on-demand table's warm write rate. */
async function bucketOf(name) {
  let bucket = buckets.get(name)
  if (bucket) return bucket
  const table = await tableOf(name)
  if (!table) return null
  bucket = newBucket(table)
  buckets.set(name, bucket)
  return bucket
}

function newBucket(table) {
  const onDemand = ((table.BillingModeSummary || {}).BillingMode) === 'PAY_PER_REQUEST'
  const pt = table.ProvisionedThroughput || {}
  const bucket = { onDemand, wcu: pt.WriteCapacityUnits || 0, rcu: pt.ReadCapacityUnits || 0, tokens: 0,
    refilled: now(), decreases: [], lastDecrease: null, lastIncrease: null, peak: 0, second: 0, secondUnits: 0 }
  // the decrease history outlives the process with --path, as DynamoDB's quota outlives a restart
  const history = (meta.get(table.TableName) || {}).history
  if (history) Object.assign(bucket, history)
  bucket.tokens = capacityOf(table.TableName, bucket)
  return bucket
}

function rateOf(name, bucket) {
  if (!bucket.onDemand) return bucket.wcu
  const m = meta.get(name) || {}
  let rate = Math.max(ON_DEMAND_NEW_TABLE_WRITES, (m.warm && m.warm.WriteUnitsPerSecond) || 0, 2 * bucket.peak)
  if (m.onDemand && m.onDemand.MaxWriteRequestUnits > 0) rate = Math.min(rate, m.onDemand.MaxWriteRequestUnits)
  return rate
}

function capacityOf(name, bucket) {
  const rate = rateOf(name, bucket)
  // on-demand: no saved-up capacity beyond a second of the warm rate
  return Math.max(1, bucket.onDemand ? rate : rate * settings.burstSeconds)
}

function refill(name, bucket) {
  const t = now()
  bucket.tokens = Math.min(capacityOf(name, bucket), bucket.tokens + rateOf(name, bucket) * (t - bucket.refilled) / 1000)
  bucket.refilled = t
}

function applies(bucket) {
  return bucket && (bucket.onDemand ? limited('on-demand') : limited('throughput'))
}

function take(name, bucket, units) {
  refill(name, bucket)
  if (bucket.tokens < units) return false
  bucket.tokens -= units
  if (bucket.onDemand) {
    const second = Math.floor(now() / 1000)
    if (second !== bucket.second) {
      bucket.second = second
      bucket.secondUnits = 0
    }
    bucket.secondUnits += units
    bucket.peak = Math.max(bucket.peak, bucket.secondUnits)
  }
  return true
}

function decreasesToday(bucket) {
  const day = Math.floor(now() / (24 * HOUR_MS))
  return bucket.decreases.filter((t) => Math.floor(t / (24 * HOUR_MS)) === day).length
}

function mayDecrease(bucket) {
  const today = decreasesToday(bucket)
  if (today < FREE_DECREASES) return true
  return today < MAX_DECREASES && (bucket.lastDecrease == null || now() - bucket.lastDecrease >= HOUR_MS)
}

// ---------------------------------------------------------------------------------------------
// Operations the layer takes part in

const RULES = {
  async CreateTable(data, req) {
    if (limited('tables')) {
      const tables = await countTables()
      if (tables >= settings.maxTables) {
        counters.refusedTables++
        return error(400, 'LimitExceededException', 'Subscriber limit exceeded: the account has ' + tables
          + ' tables, its quota is ' + settings.maxTables)
      }
    }
    const answer = await through(req, data)
    if (answer.status !== 200) return answer
    const name = data.TableName
    meta.set(name, {
      deletionProtection: !!data.DeletionProtectionEnabled,
      tableClass: data.TableClass || 'STANDARD',
      sse: data.SSESpecification || null,
      warm: data.WarmThroughput || null,
      onDemand: data.OnDemandThroughput || null,
      ttl: null,
    })
    await saveMeta(name)
    if (Array.isArray(data.Tags) && data.Tags.length) {
      const tagged = await call('TagResource', { ResourceArn: arnOf(name), Tags: data.Tags })
      if (tagged.status !== 200) return tagged
    }
    buckets.delete(name)
    counts.set(name, { items: 0, bytes: 0, dirty: false, countedAt: Date.now() })
    answer.data.TableDescription = describe(answer.data.TableDescription)
    return answer
  },

  async DescribeTable(data, req) {
    if (counts.has(data.TableName) || await tableOf(data.TableName)) await count(data.TableName)
    if (!buckets.has(data.TableName)) await bucketOf(data.TableName)
    const answer = await through(req, data)
    if (answer.status === 200) answer.data.Table = describe(answer.data.Table)
    return answer
  },

  async UpdateTable(data, req) {
    const name = data.TableName
    const table = await tableOf(name)
    if (!table) return notFound(name)
    if (busy(table)) return inUse(name, table.TableStatus)
    const m = meta.get(name) || {}
    const extra = ['DeletionProtectionEnabled', 'TableClass', 'WarmThroughput', 'OnDemandThroughput']
      .filter((key) => data[key] !== undefined)
    const bucket = await bucketOf(name)
    const pt = data.ProvisionedThroughput
    const toProvisioned = data.BillingMode === 'PROVISIONED' && bucket.onDemand
    const decrease = pt && !bucket.onDemand && (pt.WriteCapacityUnits < bucket.wcu || pt.ReadCapacityUnits < bucket.rcu)
    const increase = pt && !bucket.onDemand && (pt.WriteCapacityUnits > bucket.wcu || pt.ReadCapacityUnits > bucket.rcu)
    if (decrease && limited('decreases') && !mayDecrease(bucket)) {
      counters.refusedDecreases++
      return error(400, 'LimitExceededException', 'Subscriber limit exceeded: Provisioned throughput decreases are '
        + 'limited within a given UTC day. After the first 4 decreases, each subsequent decrease in the same UTC day '
        + 'can be performed at most once every 3600 seconds. Number of decreases today: ' + decreasesToday(bucket)
        + '. Last decrease at ' + new Date(bucket.lastDecrease).toISOString() + '. Table: ' + name)
    }
    const forDynalite = Object.assign({}, data)
    extra.forEach((key) => delete forDynalite[key])
    let answer
    if (Object.keys(forDynalite).some((key) => key !== 'TableName')) {
      answer = await through(req, forDynalite)
      if (answer.status !== 200) return answer
    } else if (extra.length === 0) {
      return through(req, data)
    } else {
      answer = ok({ TableDescription: table })
    }
    if (data.DeletionProtectionEnabled !== undefined) m.deletionProtection = !!data.DeletionProtectionEnabled
    if (data.TableClass !== undefined) m.tableClass = data.TableClass
    if (data.WarmThroughput !== undefined) m.warm = Object.assign({}, m.warm || {}, data.WarmThroughput)
    if (data.OnDemandThroughput !== undefined) m.onDemand = data.OnDemandThroughput
    if (data.SSESpecification !== undefined) m.sse = data.SSESpecification
    meta.set(name, m)
    await saveMeta(name)
    const t = now()
    if (decrease) {
      bucket.decreases.push(t)
      bucket.lastDecrease = t
    }
    if (increase) bucket.lastIncrease = t
    if (decrease || increase) {
      m.history = { decreases: bucket.decreases, lastDecrease: bucket.lastDecrease, lastIncrease: bucket.lastIncrease }
      meta.set(name, m)
      await saveMeta(name)
    }
    if (data.BillingMode === 'PAY_PER_REQUEST' && !bucket.onDemand) {
      bucket.onDemand = true
      bucket.tokens = capacityOf(name, bucket)
    } else if (pt) {
      refill(name, bucket)
      const moreWrites = pt.WriteCapacityUnits > bucket.wcu || toProvisioned
      bucket.onDemand = false
      bucket.wcu = pt.WriteCapacityUnits
      bucket.rcu = pt.ReadCapacityUnits
      // the new rate is there at once: a second of it, as if the table had been at it a while
      bucket.tokens = Math.min(moreWrites ? Math.max(bucket.tokens, bucket.wcu) : bucket.tokens, capacityOf(name, bucket))
    }
    answer.data.TableDescription = describe(answer.data.TableDescription)
    return answer
  },

  async DeleteTable(data, req) {
    const name = data.TableName
    const table = await tableOf(name)
    if (!table) return notFound(name)
    if (busy(table)) return inUse(name, table.TableStatus)
    if ((meta.get(name) || {}).deletionProtection) {
      return validation('Resource cannot be deleted as it is currently protected against deletion. Disable '
        + 'deletion protection first.')
    }
    const answer = await through(req, data)
    if (answer.status === 200) {
      answer.data.TableDescription = describe(answer.data.TableDescription)
      meta.delete(name)
      buckets.delete(name)
      counts.delete(name)
      await saveMeta(name)
    }
    return answer
  },

  async UpdateTimeToLive(data) {
    const name = data.TableName
    const spec = data.TimeToLiveSpecification
    if (!name || !spec || typeof spec.Enabled !== 'boolean' || !spec.AttributeName) {
      return validation('1 validation error detected: TimeToLiveSpecification with Enabled and AttributeName is required')
    }
    const table = await tableOf(name)
    if (!table) return notFound(name)
    if (busy(table)) return inUse(name, table.TableStatus)
    const m = meta.get(name) || {}
    const ttl = m.ttl || { enabled: false }
    if (ttl.enabled === spec.Enabled) {
      return validation(spec.Enabled ? 'TimeToLive is already enabled' : 'TimeToLive is already disabled')
    }
    if (ttl.changedAt != null && now() - ttl.changedAt < HOUR_MS) {
      counters.refusedTtlChanges++
      return validation('Time to live has been modified multiple times within a fixed interval')
    }
    m.ttl = { enabled: spec.Enabled, attribute: spec.AttributeName, changedAt: now() }
    meta.set(name, m)
    await saveMeta(name)
    return ok({ TimeToLiveSpecification: spec })
  },

  async DescribeTimeToLive(data) {
    const table = await tableOf(data.TableName)
    if (!table) return notFound(data.TableName)
    const ttl = (meta.get(data.TableName) || {}).ttl
    if (!ttl) return ok({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } })
    return ok({ TimeToLiveDescription: ttl.enabled
      ? { TimeToLiveStatus: 'ENABLED', AttributeName: ttl.attribute }
      : { TimeToLiveStatus: 'DISABLED' } })
  },

  async BatchWriteItem(data, req) {
    const requestItems = data.RequestItems || {}
    let writes = 0
    for (const name in requestItems) writes += (requestItems[name] || []).length
    if (writes > MAX_BATCH_WRITES) {
      counters.refusedBatches++
      return validation('Too many items requested for the BatchWriteItem call')
    }
    const admitted = {}
    const unprocessed = {}
    let anyAdmitted = false
    for (const name in requestItems) {
      const bucket = await bucketOf(name)
      for (const write of requestItems[name] || []) {
        const item = write && write.PutRequest && write.PutRequest.Item
        if (item) {
          const bad = checkItem(item)
          if (bad) return bad
        }
        const units = item ? writeUnits(item) : 1
        if (applies(bucket) && !take(name, bucket, units)) {
          (unprocessed[name] = unprocessed[name] || []).push(write)
          counters.throttledWrites++
        } else {
          (admitted[name] = admitted[name] || []).push(write)
          anyAdmitted = true
        }
      }
    }
    if (!anyAdmitted && writes > 0) {
      counters.throttledCalls++
      return throttled(Object.keys(requestItems))
    }
    for (const name in admitted) written(name)
    if (Object.keys(unprocessed).length === 0) return undefined
    const answer = await through(req, Object.assign({}, data, { RequestItems: admitted }))
    if (answer.status !== 200) return answer
    const merged = Object.assign({}, answer.data.UnprocessedItems || {})
    for (const name in unprocessed) merged[name] = (merged[name] || []).concat(unprocessed[name])
    answer.data.UnprocessedItems = merged
    return answer
  },

  async PutItem(data) {
    return single(data, data.Item)
  },

  async UpdateItem(data) {
    return single(data, null)
  },

  async DeleteItem(data) {
    return single(data, null)
  },
}

async function single(data, item) {
  if (item) {
    const bad = checkItem(item)
    if (bad) return bad
  }
  const bucket = await bucketOf(data.TableName)
  if (applies(bucket) && !take(data.TableName, bucket, item ? writeUnits(item) : 1)) {
    counters.throttledWrites++
    counters.throttledCalls++
    return throttled([data.TableName])
  }
  written(data.TableName)
  return undefined
}

/** A whole call throttled; with DynamoDB's ThrottlingReasons for tables held at their OnDemandThroughput ceiling. */
function throttled(tables) {
  const answer = error(400, 'ProvisionedThroughputExceededException', 'The level of configured provisioned throughput '
    + 'for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.')
  const reasons = (tables || []).filter(atCeiling)
    .map((name) => ({ reason: 'TableWriteMaxOnDemandThroughputExceeded', resource: arnOf(name) }))
  if (reasons.length > 0) answer.data.ThrottlingReasons = reasons
  return answer
}

/** True when an on-demand table's write rate is its OnDemandThroughput ceiling, not its warm rate. */
function atCeiling(name) {
  const bucket = buckets.get(name)
  const m = meta.get(name) || {}
  if (!bucket || !bucket.onDemand || !m.onDemand || !(m.onDemand.MaxWriteRequestUnits > 0)) return false
  const warm = Math.max(ON_DEMAND_NEW_TABLE_WRITES, (m.warm && m.warm.WriteUnitsPerSecond) || 0, 2 * bucket.peak)
  return m.onDemand.MaxWriteRequestUnits <= warm
}

async function countTables() {
  let tables = 0
  await new Promise((resolve) => {
    const stream = store.tableDb.createKeyStream()
    stream.on('data', () => tables++)
    stream.on('end', resolve)
    stream.on('error', resolve)
  })
  return tables
}

// ---------------------------------------------------------------------------------------------
// Control

function control(req, res, body) {
  if (req.method === 'POST') {
    let change
    try {
      change = JSON.parse(body.toString('utf8') || '{}')
    } catch (e) {
      return send(res, validation('control: ' + e.message))
    }
    try {
      if (change.reset) {
        settings.limits = new Set(parseLimits(argv.limits))
        settings.burstSeconds = num(argv['burst-seconds'], 300)
        settings.maxTables = num(argv['max-tables'], 2500)
        Object.assign(counters, newCounters())
        stopClock(false)
      }
      if (change.limits !== undefined) {
        settings.limits = new Set(parseLimits(Array.isArray(change.limits) ? change.limits.join(',') || 'none' : change.limits))
      }
      if (change.burstSeconds !== undefined) {
        settings.burstSeconds = Number(change.burstSeconds)
        for (const [name, bucket] of buckets) bucket.tokens = Math.min(bucket.tokens, capacityOf(name, bucket))
      }
      if (change.maxTables !== undefined) settings.maxTables = Number(change.maxTables)
      if (change.advanceClockMs !== undefined) {
        settings.clockOffsetMs += Number(change.advanceClockMs)
        if (settings.stoppedAt !== null) settings.stoppedAt += Number(change.advanceClockMs)
      }
      if (change.stopClock !== undefined) stopClock(Boolean(change.stopClock))
    } catch (e) {
      return send(res, validation('control: ' + e.message))
    }
  }
  send(res, ok({ limits: [...settings.limits], burstSeconds: settings.burstSeconds, maxTables: settings.maxTables,
    clockOffsetMs: settings.clockOffsetMs, clockStopped: settings.stoppedAt !== null, counters }))
}

function listen(announce) {
  server.listen(argv.port, host, () => {
    const address = server.address()
    argv.port = address.port
    console.log(announce + ' http://' + address.address + ':' + address.port)
  })
}

function stop() {
  server.close(() => console.log('STOPPED'))
  for (const socket of sockets) socket.destroy()
}

loadMeta().then(() => {
  listen('LISTENING')
  console.log('LIMITS ' + ([...settings.limits].join(',') || 'none'))
}, (e) => {
  console.error('cannot read the fidelity layer state: ' + (e && e.stack || e))
  process.exit(1)
})

const commands = readline.createInterface({ input: process.stdin })
commands.on('line', (line) => {
  const command = line.trim()
  if (command === 'stop') stop()
  else if (command === 'start') listen('LISTENING')
})
commands.on('close', () => {
  server.close()
  for (const socket of sockets) socket.destroy()
  store.db.close(() => process.exit(0))
  setTimeout(() => process.exit(0), 2000).unref()
})
