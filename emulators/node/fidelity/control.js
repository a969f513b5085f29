'use strict'
// The DynamoDB layer's settings and its clock, as the flags start them and tests change them
// (POST /__fidelity, GET /__fidelity reports them with the counters of what the layer refused).
// The clock is the one every rule reads: a stopped clock refills no tokens, starts no new second
// and ends no table state, so a test's rates do not depend on its speed.

const layer = require('../layer')
const { send, ok, validation } = require('./proxy')
const { ANSWERS } = require('./throughput-quota')

const ALL_LIMITS = ['throughput', 'on-demand', 'partitions', 'decreases', 'switches', 'tables']
const DEFAULT_TRANSITION_MS = 500

function num(value, fallback) {
  return value === undefined || value === null || value === '' ? fallback : Number(value)
}

function parseLimits(text) {
  return layer.parseLimits(text, ALL_LIMITS)
}

/** The settings the flags give (--limits, --burst-seconds, --max-tables, --max-table-units, --*-table-ms). */
function fromFlags(argv) {
  return {
    limits: new Set(parseLimits(argv.limits)),
    burstSeconds: num(argv['burst-seconds'], 300),
    maxTables: num(argv['max-tables'], 2500),
    maxTableUnits: num(argv['max-table-units'], 40000),
    aboveTableQuota: 'LimitExceededException', // see throughput-quota.js
    deny: new Set(), // operations answered AccessDeniedException (access.js)
    transitions: {
      CREATING: num(argv['create-table-ms'], DEFAULT_TRANSITION_MS),
      UPDATING: num(argv['update-table-ms'], DEFAULT_TRANSITION_MS),
      DELETING: num(argv['delete-table-ms'], DEFAULT_TRANSITION_MS),
    },
  }
}

function newCounters() {
  return { throttledWrites: 0, throttledReads: 0, throttledCalls: 0, throttledByPartition: 0, refusedDecreases: 0,
    refusedSwitches: 0, refusedTables: 0, refusedTableUnits: 0, refusedTtlChanges: 0, refusedBatches: 0, refusedItems: 0,
    refusedWhileBusy: 0, notYetActive: 0 }
}

function aboveTableQuotaAnswer(answer) {
  if (!ANSWERS.includes(answer)) throw new Error('aboveTableQuota is one of ' + ANSWERS.join(', ') + ', not ' + answer)
  return answer
}

/** The layer's clock over `settings` (clockOffsetMs, stoppedAt): { now, stopClock }. */
function clock(settings) {
  function now() {
    return settings.stoppedAt === null ? Date.now() + settings.clockOffsetMs : settings.stoppedAt
  }

  /** Stops the clock at its instant, or lets it run again: it catches up with the time it stood still. */
  function stopClock(stop) {
    if (stop && settings.stoppedAt === null) settings.stoppedAt = now()
    if (!stop) settings.stoppedAt = null
  }

  return { now, stopClock }
}

/** The handler of /__fidelity. */
function control(ctx) {
  const { argv, settings, counters, capacities, now, stopClock, tune } = ctx

  return function handleControl(req, res, body) {
    if (req.method === 'POST') {
      let change
      try {
        change = JSON.parse(body.toString('utf8') || '{}')
      } catch (e) {
        return send(res, validation('control: ' + e.message))
      }
      try {
        if (change.reset) {
          Object.assign(settings, fromFlags(argv))
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
        if (change.aboveTableQuota !== undefined) settings.aboveTableQuota = aboveTableQuotaAnswer(change.aboveTableQuota)
        if (change.deny !== undefined) settings.deny = new Set(change.deny)
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
      maxTableUnits: settings.maxTableUnits, aboveTableQuota: settings.aboveTableQuota, deny: [...settings.deny],
      transitionMs: settings.transitions,
      clockOffsetMs: settings.clockOffsetMs, clockStopped: settings.stoppedAt !== null, now: now(), counters }))
  }
}

module.exports = { fromFlags, newCounters, clock, control }
