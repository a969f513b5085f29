'use strict'
// The Kinesis layer's settings and its clock, as tests change them (POST /__fidelity; GET
// /__fidelity reports them with the counters of what the layer served and refused). The clock is
// kinesalite's too: sequence numbers' times, iterator expiry and retention follow it.

const { send, error } = require('./proxy')
const { MAX_OTHER_CONSUMERS } = require('./reads')

function newCounters() {
  return { getRecords: 0, getRecordsBytes: 0, refusedGetRecords: 0, refusedGetRecordsByCalls: 0,
    refusedGetRecordsByBytes: 0, getShardIterator: 0, refusedGetShardIterator: 0, putRecords: 0, putRecordsCalls: 0, putBytes: 0,
    refusedRecords: 0, refusedPutRecord: 0, refusedScaling: 0, listShards: 0 }
}

/** The handler of /__fidelity over the layer's state: { argv, settings, parseLimits, reads, writes, scalings, counters, clock, now }. */
function control(ctx) {
  const { argv, settings, parseLimits, reads, writes, scalings, counters, clock, now } = ctx

  return function handleControl(req, res, raw) {
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
}

module.exports = { newCounters, control }
