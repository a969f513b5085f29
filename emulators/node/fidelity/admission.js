'use strict'
// Admission of item calls by capacity: what a table serves a second (throughput.js: the
// `throughput`, `on-demand` and `partitions` rules in docs/DESIGN.md) applied to each write and
// read, and the ProvisionedThroughputExceededException with ThrottlingReasons of a refused call.

const { Provisioned, OnDemand, Partitions, NEW_TABLE_PEAK } = require('./throughput')
const warmThroughput = require('./warm-throughput')
const { error } = require('./proxy')

const THROTTLING_REASONS = {
  KeyRange: 'KeyRangeThroughputExceeded',
  Provisioned: 'ProvisionedThroughputExceeded',
  MaxOnDemand: 'MaxOnDemandThroughputExceeded',
  AccountLimit: 'AccountLimitExceeded',
}

function admission(ctx) {
  const { settings, meta, capacities, states, now, tableOf, historyOf, arnOf } = ctx

  function limited(name) {
    return settings.limits.has(name)
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
    const warm = warmThroughput.floor(m.warm)
    const max = m.onDemand || {}
    c.write.warm = warm.write
    c.read.warm = warm.read
    c.write.max = max.MaxWriteRequestUnits > 0 ? max.MaxWriteRequestUnits : 0
    c.read.max = max.MaxReadRequestUnits > 0 ? max.MaxReadRequestUnits : 0
    c.write.quota = c.read.quota = settings.maxTableUnits
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

  /** A whole call throttled, with DynamoDB's ThrottlingReasons (e.g. TableWriteKeyRangeThroughputExceeded) per table. */
  function throttled(reasons, kind) {
    const answer = error(400, 'ProvisionedThroughputExceededException', 'The level of configured provisioned throughput '
      + 'for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.')
    const list = Object.keys(reasons || {})
      .map((name) => ({ reason: 'Table' + kind + THROTTLING_REASONS[reasons[name]], resource: arnOf(name) }))
    if (list.length > 0) answer.data.ThrottlingReasons = list
    return answer
  }

  return { limited, capacityOf, toProvisioned, toOnDemand, tune, admitWrite, admitRead, chargeRead, keyOf, throttled }
}

module.exports = { admission }
