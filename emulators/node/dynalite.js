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
// quotes the sentence each rule follows, fidelity/*.js holds one rule a file); a caller that wants
// less says so with a flag.
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
//                 refused (LimitExceededException unless a test picks another answer)
//     partitions  each partition key value at most 1,000 write units or 3,000 read units a second,
//                 whatever the table's capacity
//     decreases   4 capacity decreases a UTC day, then one more when none was in the past hour,
//                 at most 27 (LimitExceededException); reported in DescribeTable
//     switches    provisioned -> on-demand at most 4 times in a rolling 24 h (on-demand ->
//                 provisioned at any time); at most 2 table class changes in 30 days
//     tables      at most --max-tables tables (LimitExceededException)
//
// Control (tests): POST /__fidelity with a JSON body {"limits": [...], "burstSeconds": n,
// "maxTables": n, "maxTableUnits": n, "aboveTableQuota": "LimitExceededException"|"ValidationException"|
// "accepted", "deny": ["ListTables", ...] (answered AccessDeniedException, access.js), "transitionMs": n,
// "advanceClockMs": n, "stopClock": true|false, "reset": true}
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
const sub = require('subleveldown')
const argv = require('minimist')(process.argv.slice(2), { string: ['path', 'host', 'limits'] })
const { TableStates } = require('./fidelity/states')
const { proxy, send, error, PREFIX } = require('./fidelity/proxy')
const { fromFlags, newCounters, clock, control } = require('./fidelity/control')
const { tables } = require('./fidelity/tables')
const { metadata } = require('./fidelity/metadata')
const { itemCounts } = require('./fidelity/item-counts')
const { admission } = require('./fidelity/admission')
const { throughputQuota } = require('./fidelity/throughput-quota')
const { ttl } = require('./fidelity/ttl')
const { access } = require('./fidelity/access')
const { itemCalls } = require('./fidelity/item-calls')
const { tableCalls } = require('./fidelity/table-calls')
const layer = require('./layer')

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

// What every rule shares: the settings, the clock, the counters and the layer's own state by table.
const settings = Object.assign(fromFlags(argv), {
  clockOffsetMs: 0,
  stoppedAt: null, // a stopped clock reads this instant until it starts again
})
const { now, stopClock } = clock(settings)
const ctx = {
  argv,
  store,
  settings,
  now,
  stopClock,
  counters: newCounters(),
  // What dynalite does not keep (TTL, tags given at creation, table options, the quota history); in its LevelDB with --path.
  metaDb: sub(store.db, 'period-tables-fidelity', { valueEncoding: 'json' }),
  meta: new Map(), // table name -> options, TTL state and quota history (persisted in metaDb)
  capacities: new Map(), // table name -> what it serves a second (see admission.js)
  counts: new Map(), // table name -> { items, bytes, dirty }
  states: new TableStates(now, () => settings.transitions),
  // What was refused, by table, written to standard output every 5 s: where a test or the local run
  // met a rule, in the emulator's log ("REFUSED <table> <what>: <n>").
  note: layer.refusalLog(),
}
// Each rule's functions, in the order they need each other.
Object.assign(ctx, proxy(dynaliteHandler))
for (const rule of [tables, metadata, itemCounts, admission, throughputQuota]) Object.assign(ctx, rule(ctx))
// The operations the layer takes part in; any other goes to dynalite unchanged.
const RULES = Object.assign({}, ttl(ctx), itemCalls(ctx), tableCalls(ctx))
const { denied } = access(ctx)
const handleControl = control(ctx)

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
    if (req.url.startsWith('/__fidelity')) return handleControl(req, res, body)
    const operation = (req.headers['x-amz-target'] || '').split('.')[1]
    const denial = denied(operation, body)
    if (denial) return send(res, denial)
    const rule = RULES[operation]
    let data
    if (rule) {
      try {
        data = JSON.parse(body.toString('utf8'))
      } catch (e) {
        data = undefined
      }
    }
    if (!rule || data == null || typeof data !== 'object') return ctx.forward(req, res, body)
    Promise.resolve()
      .then(() => rule(data, req))
      .then((answer) => answer === undefined ? ctx.forward(req, res, body) : send(res, answer))
      .catch((e) => {
        console.error(e && e.stack || e)
        send(res, error(500, 'InternalServerError', 'fidelity layer: ' + e, PREFIX))
      })
  })
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

ctx.loadMeta().then(() => {
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
