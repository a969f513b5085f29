#!/usr/bin/env node
// Starts dynalite (the pinned DynamoDB emulator) behind period-tables' DynamoDB fidelity layer,
// for tests and the local run.
//
//   node dynalite.js --port <port> [--host 127.0.0.1] [--path <dir>] [--limits all|none|a,b]
//                    [--burst-seconds 300] [--max-tables 2500] [--max-table-units 40000]
//                    [--create-table-ms 500]
//                    [--update-table-ms 500] [--delete-table-ms 500]
//
// With no flag but --port this is DynamoDB as its documentation describes it (docs/DESIGN.md
// quotes the sentence each rule follows); a caller that wants less says so with a flag.
//
// dynalite answers DynamoDB's API from memory (or LevelDB with --path). The layer in front of
// it, in this process, makes it behave as DynamoDB does where the job meets a difference:
//
//   filled in (always): UpdateTimeToLive/DescribeTimeToLive with the one-change-an-hour rule;
//     Tags, SSESpecification, DeletionProtectionEnabled, TableClass, WarmThroughput and
//     OnDemandThroughput given in CreateTable (and UpdateTable) kept and reported; deletion
//     protection enforced; ItemCount and TableSizeBytes; at most 25 writes per BatchWriteItem
//     across tables; item size counted in UTF-8 bytes (400 KB); empty attribute names refused.
//   table states take time, on the layer's clock: CREATING for --create-table-ms after
//     CreateTable, UPDATING for --update-table-ms after an UpdateTable that changes capacity,
//     billing mode, class, encryption, streams or indexes, DELETING for --delete-table-ms; items
//     of a CREATING table are not found; UpdateTable, UpdateTimeToLive and DeleteTable of a table
//     that is not ACTIVE answer ResourceInUseException; new capacity applies once UPDATING ends.
//   limits (on unless --limits says otherwise, switchable at run time):
//     throughput  a provisioned table's WCU and RCU as token buckets that save up at most
//                 --burst-seconds of unused capacity, starting with one second of it: writes
//                 beyond it come back as UnprocessedItems, or fail with
//                 ProvisionedThroughputExceededException when nothing fits; reads fail so; WCU or
//                 RCU above --max-table-units (the per-table quota) refused (LimitExceededException)
//     on-demand   an on-demand table serves twice its previous peak a second (a new table: 4,000
//                 write / 12,000 read units; a switched one: half its highest provisioned, if more),
//                 a second's traffic counting as a peak 30 minutes later; at least its
//                 WarmThroughput, at most its OnDemandThroughput and --max-table-units (the
//                 per-table quota); OnDemandThroughput or WarmThroughput above that quota
//                 refused (LimitExceededException)
//     partitions  each partition key value at most 1,000 write units or 3,000 read units a second,
//                 whatever the table's capacity
//     decreases   4 capacity decreases a UTC day, then one more when none was in the past hour,
//                 at most 27 (LimitExceededException); reported in DescribeTable
//     switches    provisioned -> on-demand at most 4 times in a rolling 24 h (on-demand ->
//                 provisioned at any time); at most 2 table class changes in 30 days
//     tables      at most --max-tables tables (LimitExceededException)
//
// Control (tests): POST /__fidelity with a JSON body {"limits": [...], "burstSeconds": n,
// "maxTables": n, "maxTableUnits": n, "transitionMs": n, "advanceClockMs": n, "stopClock": true|false,
// "reset": true}
// changes the settings (a stopped clock refills no tokens, starts no new second and ends no table
// state: a test's rates do not depend on its speed; reset starts it again); GET /__fidelity
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
const { Provisioned, OnDemand, Partitions, NEW_TABLE_PEAK } = require('./fidelity/throughput')
const quotas = require('./fidelity/quotas')
const { TableStates } = require('./fidelity/states')
const layer = require('./layer')

const ALL_LIMITS = ['throughput', 'on-demand', 'partitions', 'decreases', 'switches', 'tables']
const MAX_ITEM_BYTES = 400 * 1024
const MAX_BATCH_WRITES = 25
const HOUR_MS = quotas.HOUR_MS
const DEFAULT_TRANSITION_MS = 500
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
// dynalite's own table delays stay 0 (its timers run on this machine's clock): the layer keeps
// the states on its clock instead, so that tests can hold or end them (see TableStates).
const dynalite = require('dynalite')(Object.assign({ createTableMs: 0, updateTableMs: 0, deleteTableMs: 0 },
  argv.path ? { path: argv.path } : {}))
const dynaliteHandler = dynalite.listeners('request')[0]
// What dynalite does not keep (TTL, tags given at creation, table options, the quota history); in its LevelDB with --path.
const metaDb = sub(store.db, 'period-tables-fidelity', { valueEncoding: 'json' })

const settings = {
  limits: new Set(parseLimits(argv.limits)),
  burstSeconds: num(argv['burst-seconds'], 300),
  maxTables: num(argv['max-tables'], 2500),
  maxTableUnits: num(argv['max-table-units'], 40000),
  transitions: startTransitions(),
  clockOffsetMs: 0,
  stoppedAt: null, // a stopped clock reads this instant until it starts again
}
const counters = newCounters()
const meta = new Map() // table name -> options, TTL state and quota history (persisted in metaDb)
const capacities = new Map() // table name -> what it serves a second (see capacityOf)
const counts = new Map() // table name -> { items, bytes, dirty }
const states = new TableStates(now, () => settings.transitions)
// What was refused, by table, written to standard output every 5 s: where a test or the local run
// met a rule, in the emulator's log ("REFUSED <table> <what>: <n>").
const note = layer.refusalLog()

function num(value, fallback) {
  return value === undefined || value === null || value === '' ? fallback : Number(value)
}

function startTransitions() {
  return {
    CREATING: num(argv['create-table-ms'], DEFAULT_TRANSITION_MS),
    UPDATING: num(argv['update-table-ms'], DEFAULT_TRANSITION_MS),
    DELETING: num(argv['delete-table-ms'], DEFAULT_TRANSITION_MS),
  }
}

function parseLimits(text) {
  return layer.parseLimits(text, ALL_LIMITS)
}

function newCounters() {
  return { throttledWrites: 0, throttledReads: 0, throttledCalls: 0, throttledByPartition: 0, refusedDecreases: 0,
    refusedSwitches: 0, refusedTables: 0, refusedTableUnits: 0, refusedTtlChanges: 0, refusedBatches: 0, refusedItems: 0,
    refusedWhileBusy: 0, notYetActive: 0 }
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

function inUse(name, status) {
  counters.refusedWhileBusy++
  note(name, 'change while ' + status)
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
  if (out.TableStatus !== 'DELETING') out.TableStatus = states.statusOf(description.TableName)
  if (out.ProvisionedThroughput) {
    const h = historyOf(description.TableName)
    const pt = Object.assign({}, out.ProvisionedThroughput)
    pt.NumberOfDecreasesToday = quotas.decreasesOn(h.decreases, now())
    if (h.decreases.length) pt.LastDecreaseDateTime = Math.max(...h.decreases) / 1000
    else delete pt.LastDecreaseDateTime
    if (h.lastIncrease) pt.LastIncreaseDateTime = h.lastIncrease / 1000
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

/** The quota history of a table: its decreases, switches to on-demand, class changes, highest provisioned units. */
function historyOf(name) {
  const m = meta.get(name) || {}
  const h = Object.assign({ decreases: [], toOnDemand: [], classChanges: [], lastIncrease: null, maxWrite: 0,
    maxRead: 0 }, m.history || {})
  return h
}

async function saveHistory(name, h, t) {
  const m = meta.get(name) || {}
  h.decreases = quotas.trim(h.decreases, t, 2 * quotas.DAY_MS)
  h.toOnDemand = quotas.trim(h.toOnDemand, t, quotas.DAY_MS)
  h.classChanges = quotas.trim(h.classChanges, t, 30 * quotas.DAY_MS)
  m.history = h
  meta.set(name, m)
  await saveMeta(name)
}

/**
 * What the table serves a second: { onDemand, hashKey, write, read, partitions }, its meters
 * Provisioned or OnDemand; built the first time a table is used, its capacity starting when the
 * table is ACTIVE. A change of mode waits for its UPDATING to end (`pending`): while it switches,
 * the table serves what it served before.
 */
async function capacityOf(name) {
  const cached = capacities.get(name)
  if (cached) return settled(cached)
  const table = await tableOf(name)
  if (!table) return null
  const c = { onDemand: false, hashKey: hashKeyOf(table), write: null, read: null, partitions: new Partitions(),
    peaks: { write: 0, read: 0 }, pending: null }
  const pt = table.ProvisionedThroughput || {}
  const from = states.until(name)
  if (((table.BillingModeSummary || {}).BillingMode) === 'PAY_PER_REQUEST') toOnDemand(name, c)
  else toProvisioned(c, pt.WriteCapacityUnits || 0, pt.ReadCapacityUnits || 0, from)
  capacities.set(name, c)
  return c
}

function settled(c) {
  if (c.pending && now() >= c.pending.at) {
    const apply = c.pending.apply
    c.pending = null
    apply()
  }
  return c
}

function hashKeyOf(table) {
  const hash = (table.KeySchema || []).find((k) => k.KeyType === 'HASH')
  return hash ? hash.AttributeName : null
}

function toProvisioned(c, writeUnits, readUnits, from) {
  if (c.onDemand) c.peaks = { write: Math.max(c.peaks.write, c.write.peak()), read: Math.max(c.peaks.read, c.read.peak()) }
  c.onDemand = false
  c.write = new Provisioned(writeUnits, from)
  c.read = new Provisioned(readUnits, from)
}

/**
 * "the previous peak is half the previous provisioned throughput for the table—or the settings
 * for a newly created table with on-demand capacity mode, whichever is higher"; a table that was
 * on-demand before keeps the peak it had reached.
 */
function toOnDemand(name, c) {
  const h = historyOf(name)
  c.onDemand = true
  c.write = new OnDemand(Math.max(NEW_TABLE_PEAK.write, h.maxWrite / 2, c.peaks.write))
  c.read = new OnDemand(Math.max(NEW_TABLE_PEAK.read, h.maxRead / 2, c.peaks.read))
  tune(name, c)
}

/** WarmThroughput of an on-demand table sets its floor; OnDemandThroughput and the per-table quota its ceiling. */
function tune(name, c) {
  if (!c.onDemand) return
  const m = meta.get(name) || {}
  const warm = m.warm || {}
  const max = m.onDemand || {}
  c.write.warm = warm.WriteUnitsPerSecond || 0
  c.read.warm = warm.ReadUnitsPerSecond || 0
  c.write.max = max.MaxWriteRequestUnits > 0 ? max.MaxWriteRequestUnits : 0
  c.read.max = max.MaxReadRequestUnits > 0 ? max.MaxReadRequestUnits : 0
  c.write.quota = c.read.quota = settings.maxTableUnits
}

/**
 * The per-table throughput quota (--max-table-units): a CreateTable or UpdateTable that sets
 * provisioned throughput (rule `throughput`), OnDemandThroughput or WarmThroughput (rule
 * `on-demand`) above it answers LimitExceededException; null when none does.
 */
function aboveTableQuota(data) {
  const pt = data.ProvisionedThroughput || {}
  const max = data.OnDemandThroughput || {}
  const warm = data.WarmThroughput || {}
  const requested = []
  if (limited('throughput')) {
    requested.push(['ProvisionedThroughput.WriteCapacityUnits', pt.WriteCapacityUnits],
      ['ProvisionedThroughput.ReadCapacityUnits', pt.ReadCapacityUnits])
  }
  if (limited('on-demand')) {
    requested.push(['OnDemandThroughput.MaxWriteRequestUnits', max.MaxWriteRequestUnits],
      ['OnDemandThroughput.MaxReadRequestUnits', max.MaxReadRequestUnits],
      ['WarmThroughput.WriteUnitsPerSecond', warm.WriteUnitsPerSecond],
      ['WarmThroughput.ReadUnitsPerSecond', warm.ReadUnitsPerSecond])
  }
  const over = requested.find(([, units]) => units > settings.maxTableUnits)
  if (!over) return null
  counters.refusedTableUnits++
  note(data.TableName, over[0] + ' above the per-table quota')
  return error(400, 'LimitExceededException', 'Subscriber limit exceeded: ' + over[0] + ' ' + over[1]
    + ' is above the per-table throughput quota of ' + settings.maxTableUnits + ' units. Table: ' + data.TableName)
}

function applies(c) {
  return c && (c.onDemand ? limited('on-demand') : limited('throughput'))
}

/** Takes a write's units from its table and its partition, or neither; the reason when it does not fit. */
function admitWrite(c, key, units) {
  const t = now()
  const partitions = limited('partitions') && key !== undefined
  if (partitions && !c.partitions.takeWrites(key, units, t)) return 'KeyRange'
  if (applies(c) && !(c.onDemand ? c.write.take(units, t) : c.write.take(units, t, settings.burstSeconds))) {
    if (partitions) c.partitions.takeWrites(key, -units, t)
    return c.onDemand ? c.write.ceiling(t).reason : 'Provisioned'
  }
  return null
}

/** Whether a read may start (its units are charged once its answer says how many). */
function admitRead(c, key) {
  const t = now()
  if (limited('partitions') && key !== undefined && !c.partitions.admitsReads(key, t)) return 'KeyRange'
  if (applies(c) && !(c.onDemand ? c.read.admits(t) : c.read.admits(t, settings.burstSeconds))) {
    return c.onDemand ? c.read.ceiling(t).reason : 'Provisioned'
  }
  return null
}

function chargeRead(c, key, units) {
  if (applies(c)) c.read.charge(units)
  if (limited('partitions') && key !== undefined) c.partitions.chargeReads(key, units, now())
}

function keyOf(c, item) {
  const value = item && c.hashKey ? item[c.hashKey] : undefined
  return value === undefined ? undefined : JSON.stringify(value)
}

// ---------------------------------------------------------------------------------------------
// Operations the layer takes part in

const RULES = {
  async CreateTable(data, req) {
    const name = data.TableName
    if (states.statusOf(name) === 'DELETING') return inUse(name, 'DELETING')
    if (limited('tables')) {
      const tables = await countTables()
      if (tables >= settings.maxTables) {
        counters.refusedTables++
        return error(400, 'LimitExceededException', 'Subscriber limit exceeded: the account has ' + tables
          + ' tables, its quota is ' + settings.maxTables)
      }
    }
    const overQuota = aboveTableQuota(data)
    if (overQuota) return overQuota
    const answer = await through(req, data)
    if (answer.status !== 200) return answer
    meta.set(name, {
      deletionProtection: !!data.DeletionProtectionEnabled,
      tableClass: data.TableClass || 'STANDARD',
      sse: data.SSESpecification || null,
      warm: data.WarmThroughput || null,
      onDemand: data.OnDemandThroughput || null,
      ttl: null,
    })
    const pt = data.ProvisionedThroughput || {}
    if (pt.WriteCapacityUnits || pt.ReadCapacityUnits) {
      meta.get(name).history = Object.assign(historyOf(name), { maxWrite: pt.WriteCapacityUnits || 0,
        maxRead: pt.ReadCapacityUnits || 0 })
    }
    await saveMeta(name)
    if (Array.isArray(data.Tags) && data.Tags.length) {
      const tagged = await call('TagResource', { ResourceArn: arnOf(name), Tags: data.Tags })
      if (tagged.status !== 200) return tagged
    }
    states.begin(name, 'CREATING')
    capacities.delete(name)
    counts.set(name, { items: 0, bytes: 0, dirty: false, countedAt: Date.now() })
    answer.data.TableDescription = describe(answer.data.TableDescription)
    return answer
  },

  async DescribeTable(data, req) {
    const name = data.TableName
    const deleting = states.deleting(name)
    if (deleting) return ok({ Table: deleting })
    if (counts.has(name) || await tableOf(name)) await count(name)
    await capacityOf(name)
    const answer = await through(req, data)
    if (answer.status === 200) answer.data.Table = describe(answer.data.Table)
    return answer
  },

  async UpdateTable(data, req) {
    const name = data.TableName
    const table = await tableOf(name)
    if (!table) return states.deleting(name) ? inUse(name, 'DELETING') : notFound(name)
    const status = states.statusOf(name)
    if (status !== 'ACTIVE') return inUse(name, status)
    const overQuota = aboveTableQuota(data)
    if (overQuota) return overQuota
    const m = meta.get(name) || {}
    const h = historyOf(name)
    const c = await capacityOf(name)
    const t = now()
    const extra = ['DeletionProtectionEnabled', 'TableClass', 'WarmThroughput', 'OnDemandThroughput']
      .filter((key) => data[key] !== undefined)
    const pt = data.ProvisionedThroughput
    const current = table.ProvisionedThroughput || {}
    const switchToOnDemand = data.BillingMode === 'PAY_PER_REQUEST' && !c.onDemand
    const switchToProvisioned = data.BillingMode === 'PROVISIONED' && c.onDemand
    const decrease = !!pt && !c.onDemand && (pt.WriteCapacityUnits < current.WriteCapacityUnits
      || pt.ReadCapacityUnits < current.ReadCapacityUnits)
    const increase = !!pt && !c.onDemand && (pt.WriteCapacityUnits > current.WriteCapacityUnits
      || pt.ReadCapacityUnits > current.ReadCapacityUnits)
    const classChange = data.TableClass !== undefined && data.TableClass !== (m.tableClass || 'STANDARD')
    if (decrease && limited('decreases') && !quotas.decreaseAllowed(h.decreases, t)) {
      counters.refusedDecreases++
      note(name, 'decrease beyond the quota')
      const last = Math.max(...h.decreases)
      return error(400, 'LimitExceededException', 'Subscriber limit exceeded: Provisioned throughput decreases are '
        + 'limited within a given UTC day. After the first 4 decreases, each subsequent decrease in the same UTC day '
        + 'can be performed at most once every 3600 seconds. Number of decreases today: '
        + quotas.decreasesOn(h.decreases, t) + '. Last decrease at ' + new Date(last).toISOString() + '. Table: ' + name)
    }
    if (switchToOnDemand && limited('switches') && !quotas.switchToOnDemandAllowed(h.toOnDemand, t)) {
      counters.refusedSwitches++
      return error(400, 'LimitExceededException', 'Subscriber limit exceeded: a table can switch from provisioned to '
        + 'on-demand capacity mode at most 4 times in a rolling 24 hours. Table: ' + name)
    }
    if (classChange && limited('switches') && !quotas.classChangeAllowed(h.classChanges, t)) {
      counters.refusedSwitches++
      return error(400, 'LimitExceededException', 'Subscriber limit exceeded: no more than two table class updates '
        + 'are allowed in a 30-day trailing period. Table: ' + name)
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
    if (decrease) h.decreases.push(t)
    if (increase) h.lastIncrease = t
    if (switchToOnDemand) h.toOnDemand.push(t)
    if (classChange) h.classChanges.push(t)
    if (pt) {
      h.maxWrite = Math.max(h.maxWrite, pt.WriteCapacityUnits || 0)
      h.maxRead = Math.max(h.maxRead, pt.ReadCapacityUnits || 0)
    }
    await saveHistory(name, h, t)
    // DeletionProtectionEnabled, WarmThroughput and OnDemandThroughput alone leave the table ACTIVE
    const updating = pt || switchToOnDemand || switchToProvisioned || classChange || data.SSESpecification
      || data.GlobalSecondaryIndexUpdates || data.StreamSpecification
    const until = updating ? states.begin(name, 'UPDATING') : t
    if (switchToOnDemand) {
      c.pending = { at: until, apply: () => toOnDemand(name, c) }
    } else if (switchToProvisioned) {
      c.pending = { at: until, apply: () => toProvisioned(c, pt.WriteCapacityUnits, pt.ReadCapacityUnits, until) }
    } else if (pt && !c.onDemand) {
      c.write.change(pt.WriteCapacityUnits, until)
      c.read.change(pt.ReadCapacityUnits, until)
    }
    tune(name, c)
    answer.data.TableDescription = describe(answer.data.TableDescription)
    return answer
  },

  async DeleteTable(data, req) {
    const name = data.TableName
    const table = await tableOf(name)
    if (!table) return states.deleting(name) ? ok({ TableDescription: states.deleting(name) }) : notFound(name)
    const status = states.statusOf(name)
    if (status !== 'ACTIVE') return inUse(name, status)
    if ((meta.get(name) || {}).deletionProtection) {
      return validation('Resource cannot be deleted as it is currently protected against deletion. Disable '
        + 'deletion protection first.')
    }
    const answer = await through(req, data)
    if (answer.status === 200) {
      answer.data.TableDescription = describe(answer.data.TableDescription)
      answer.data.TableDescription.TableStatus = 'DELETING'
      states.begin(name, 'DELETING', answer.data.TableDescription)
      meta.delete(name)
      capacities.delete(name)
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
    if (!table) return states.deleting(name) ? inUse(name, 'DELETING') : notFound(name)
    const status = states.statusOf(name)
    if (status !== 'ACTIVE') return inUse(name, status)
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
    for (const name in requestItems) {
      const missing = notActive(name)
      if (missing) return missing
    }
    const admitted = {}
    const unprocessed = {}
    const reasons = {}
    let anyAdmitted = false
    for (const name in requestItems) {
      const c = await capacityOf(name)
      for (const write of requestItems[name] || []) {
        const item = write && write.PutRequest && write.PutRequest.Item
        if (item) {
          const bad = checkItem(item)
          if (bad) return bad
        }
        const key = c ? keyOf(c, item || (write && write.DeleteRequest && write.DeleteRequest.Key)) : undefined
        const reason = c ? admitWrite(c, key, item ? writeUnits(item) : 1) : null
        if (reason) {
          (unprocessed[name] = unprocessed[name] || []).push(write)
          reasons[name] = reason
          note(name, 'write ' + reason)
          counters.throttledWrites++
          if (reason === 'KeyRange' && key !== undefined) counters.throttledByPartition++
        } else {
          (admitted[name] = admitted[name] || []).push(write)
          anyAdmitted = true
        }
      }
    }
    if (!anyAdmitted && writes > 0) {
      counters.throttledCalls++
      return throttled(reasons, 'Write')
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
    return single(data, data.Item, data.Item)
  },

  async UpdateItem(data) {
    return single(data, null, data.Key)
  },

  async DeleteItem(data) {
    return single(data, null, data.Key)
  },

  async GetItem(data, req) {
    return read(data, req, data.Key)
  },

  async Query(data, req) {
    return read(data, req, undefined)
  },

  async Scan(data, req) {
    return read(data, req, undefined)
  },

  async BatchGetItem(data, req) {
    const names = Object.keys(data.RequestItems || {})
    const reasons = {}
    for (const name of names) {
      const missing = notActive(name)
      if (missing) return missing
      const c = await capacityOf(name)
      const reason = c ? admitRead(c, undefined) : null
      if (reason) reasons[name] = reason
    }
    if (Object.keys(reasons).length > 0) {
      counters.throttledReads++
      counters.throttledCalls++
      return throttled(reasons, 'Read')
    }
    const answer = await through(req, Object.assign({}, data, { ReturnConsumedCapacity: 'TOTAL' }))
    if (answer.status !== 200) return answer
    for (const consumed of answer.data.ConsumedCapacity || []) {
      const c = capacities.get(consumed.TableName)
      if (c) chargeRead(c, undefined, consumed.CapacityUnits || 0)
    }
    if (!data.ReturnConsumedCapacity || data.ReturnConsumedCapacity === 'NONE') delete answer.data.ConsumedCapacity
    return answer
  },
}

/** ResourceNotFoundException for a table that does not exist or is still CREATING, as DynamoDB answers item calls; else null. */
function notActive(name) {
  if (states.statusOf(name) !== 'CREATING') return null
  note(name, 'item call while CREATING')
  counters.notYetActive++
  return notFound(name)
}

async function single(data, item, key) {
  if (item) {
    const bad = checkItem(item)
    if (bad) return bad
  }
  const missing = notActive(data.TableName)
  if (missing) return missing
  const c = await capacityOf(data.TableName)
  const partitionKey = c ? keyOf(c, key) : undefined
  const reason = c ? admitWrite(c, partitionKey, item ? writeUnits(item) : 1) : null
  if (reason) {
    note(data.TableName, 'write ' + reason)
    counters.throttledWrites++
    counters.throttledCalls++
    if (reason === 'KeyRange' && partitionKey !== undefined) counters.throttledByPartition++
    return throttled({ [data.TableName]: reason }, 'Write')
  }
  written(data.TableName)
  return undefined
}

/** A read admitted while its table and partition have capacity left, charged what dynalite says it consumed. */
async function read(data, req, key) {
  const name = data.TableName
  const missing = notActive(name)
  if (missing) return missing
  const c = await capacityOf(name)
  if (!c) return undefined
  const partitionKey = keyOf(c, key)
  const reason = admitRead(c, partitionKey)
  if (reason) {
    note(name, 'read ' + reason)
    counters.throttledReads++
    counters.throttledCalls++
    return throttled({ [name]: reason }, 'Read')
  }
  const answer = await through(req, Object.assign({}, data, { ReturnConsumedCapacity: 'TOTAL' }))
  if (answer.status !== 200) return answer
  const units = (answer.data.ConsumedCapacity || {}).CapacityUnits || 0
  // a Query reads one partition: the one its items come from
  const readKey = partitionKey !== undefined ? partitionKey : data.KeyConditionExpression || data.KeyConditions
    ? keyOf(c, (answer.data.Items || [])[0]) : undefined
  chargeRead(c, readKey, units)
  if (!data.ReturnConsumedCapacity || data.ReturnConsumedCapacity === 'NONE') delete answer.data.ConsumedCapacity
  return answer
}

const THROTTLING_REASONS = {
  KeyRange: 'KeyRangeThroughputExceeded',
  Provisioned: 'ProvisionedThroughputExceeded',
  MaxOnDemand: 'MaxOnDemandThroughputExceeded',
  AccountLimit: 'AccountLimitExceeded',
}

/** A whole call throttled, with DynamoDB's ThrottlingReasons (e.g. TableWriteKeyRangeThroughputExceeded) per table. */
function throttled(reasons, kind) {
  const answer = error(400, 'ProvisionedThroughputExceededException', 'The level of configured provisioned throughput '
    + 'for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.')
  const list = Object.keys(reasons || {})
    .map((name) => ({ reason: 'Table' + kind + THROTTLING_REASONS[reasons[name]], resource: arnOf(name) }))
  if (list.length > 0) answer.data.ThrottlingReasons = list
  return answer
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
        settings.maxTableUnits = num(argv['max-table-units'], 40000)
        settings.transitions = startTransitions()
        Object.assign(counters, newCounters())
        stopClock(false)
      }
      if (change.limits !== undefined) {
        settings.limits = new Set(parseLimits(Array.isArray(change.limits) ? change.limits.join(',') || 'none' : change.limits))
      }
      if (change.burstSeconds !== undefined) {
        settings.burstSeconds = Number(change.burstSeconds)
        for (const c of capacities.values()) if (!c.onDemand) [c.write, c.read].forEach((m) => m.clamp(settings.burstSeconds))
      }
      if (change.transitionMs !== undefined) {
        const ms = Number(change.transitionMs)
        settings.transitions = { CREATING: ms, UPDATING: ms, DELETING: ms }
      }
      if (change.maxTables !== undefined) settings.maxTables = Number(change.maxTables)
      if (change.maxTableUnits !== undefined) settings.maxTableUnits = Number(change.maxTableUnits)
      for (const [name, c] of capacities) tune(name, c)
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
    maxTableUnits: settings.maxTableUnits,
    transitionMs: settings.transitions,
    clockOffsetMs: settings.clockOffsetMs, clockStopped: settings.stoppedAt !== null, now: now(), counters }))
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
  console.log('TABLE STATES ' + JSON.stringify(settings.transitions))
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
