'use strict'
// What DynamoDB serves a table, and one partition of it, per second. Each number follows a sentence
// of DynamoDB's documentation, quoted in docs/DESIGN.md ("what is dynalite's and what is ours").

const SECOND_MS = 1000
/** "New on-demand tables will be able to sustain up to 4,000 writes per second and 12,000 reads per second": twice this previous peak. */
const NEW_TABLE_PEAK = Object.freeze({ write: 2000, read: 6000 })
/** "throttling can still occur if the throughput exceeds twice the previous peak within the same 30 minutes" */
const SETTLE_MS = 30 * 60 * SECOND_MS
/** "Each partition on the table can serve up to 3,000 read request units or 1,000 write request units, or a linear combination of both" */
const PARTITION_READ_UNITS = 3000
const PARTITION_WRITE_UNITS = 1000

/**
 * Provisioned capacity: a token bucket at the provisioned rate that saves up at most burstSeconds
 * of unused capacity. It starts with one second of its rate, from the instant the table is ACTIVE:
 * a new table has left nothing unused yet. A new rate applies when its UpdateTable completes.
 */
class Provisioned {
  constructor(rate, from) {
    this.rate = rate
    this.tokens = rate
    this.refilled = from
    this.pending = null
  }

  /** The rate from instant `at` on (the end of the UPDATING the change causes). */
  change(rate, at) {
    this.pending = { rate, at }
  }

  refill(t, burstSeconds) {
    if (this.pending && t >= this.pending.at) {
      this.fill(this.pending.at, burstSeconds)
      this.rate = this.pending.rate
      this.pending = null
    }
    this.fill(t, burstSeconds)
  }

  fill(t, burstSeconds) {
    if (t <= this.refilled) return
    this.tokens = Math.min(this.capacity(burstSeconds), this.tokens + this.rate * (t - this.refilled) / SECOND_MS)
    this.refilled = t
  }

  /** At most burstSeconds of the rate, and never less than one second of it. */
  capacity(burstSeconds) {
    return Math.max(1, this.rate * Math.max(1, burstSeconds))
  }

  /** Drops what a shorter burst no longer holds. */
  clamp(burstSeconds) {
    this.tokens = Math.min(this.tokens, this.capacity(burstSeconds))
  }

  /** Takes units when they fit (writes: their size is known before). */
  take(units, t, burstSeconds) {
    this.refill(t, burstSeconds)
    if (this.tokens < units) return false
    this.tokens -= units
    return true
  }

  /** Whether anything is left (reads: charged after, as their size is known only then). */
  admits(t, burstSeconds) {
    this.refill(t, burstSeconds)
    return this.tokens > 0
  }

  charge(units) {
    this.tokens -= units
  }
}

/**
 * On-demand capacity: at most twice the previous peak in any second, where a second's traffic
 * becomes the previous peak only 30 minutes later (doubling takes that long); never below the
 * table's WarmThroughput, never above its OnDemandThroughput nor the per-table quota. The current
 * second never counts.
 */
class OnDemand {
  constructor(previousPeak) {
    this.settled = previousPeak
    this.served = [] // [second, units] of past seconds not yet 30 minutes old
    this.second = null
    this.units = 0
    this.warm = 0
    this.max = 0
    this.quota = Infinity
  }

  roll(t) {
    const second = Math.floor(t / SECOND_MS)
    if (second === this.second) return
    if (this.second !== null && this.units > 0) this.served.push([this.second, this.units])
    this.second = second
    this.units = 0
  }

  settle(t) {
    while (this.served.length > 0 && (this.served[0][0] + 1) * SECOND_MS <= t - SETTLE_MS) {
      this.settled = Math.max(this.settled, this.served.shift()[1])
    }
  }

  /**
   * The most this table serves in the current second, and what sets it (its ThrottlingReasons):
   * 'MaxOnDemand' (OnDemandThroughput), 'AccountLimit' (the per-table quota, when no lower
   * OnDemandThroughput is set) or 'KeyRange' (twice the previous peak, or WarmThroughput).
   */
  ceiling(t) {
    this.settle(t)
    const warm = Math.max(2 * this.settled, this.warm || 0)
    if (this.max > 0 && this.max <= Math.min(warm, this.quota)) return { units: this.max, reason: 'MaxOnDemand' }
    if (this.quota <= warm) return { units: this.quota, reason: 'AccountLimit' }
    return { units: warm, reason: 'KeyRange' }
  }

  rate(t) {
    return this.ceiling(t).units
  }

  /** The highest second served so far, settled or not: what half of it carries into a later switch. */
  peak() {
    return this.served.reduce((p, s) => Math.max(p, s[1]), Math.max(this.settled, this.units))
  }

  take(units, t) {
    this.roll(t)
    if (this.units + units > this.rate(t)) return false
    this.units += units
    return true
  }

  admits(t) {
    this.roll(t)
    return this.units < this.rate(t)
  }

  charge(units) {
    this.units += units
  }
}

/**
 * One token bucket per partition key value (a hash key is at least one partition), holding one
 * second of a partition's capacity in read units, a write unit costing three: "or a linear
 * combination of both". No burst: the table's saved-up capacity does not reach a hot partition.
 */
class Partitions {
  constructor() {
    this.keys = new Map()
  }

  bucket(key, t) {
    let p = this.keys.get(key)
    if (!p) {
      if (this.keys.size > 100000) this.prune(t)
      p = { tokens: PARTITION_READ_UNITS, refilled: t }
      this.keys.set(key, p)
    }
    if (t > p.refilled) {
      p.tokens = Math.min(PARTITION_READ_UNITS, p.tokens + PARTITION_READ_UNITS * (t - p.refilled) / SECOND_MS)
      p.refilled = t
    }
    return p
  }

  /** Whether writeUnits more fit in the partition of `key` now; taken when they do. */
  takeWrites(key, writeUnits, t) {
    const p = this.bucket(key, t)
    const cost = writeUnits * PARTITION_READ_UNITS / PARTITION_WRITE_UNITS
    if (p.tokens < cost) return false
    p.tokens -= cost
    return true
  }

  admitsReads(key, t) {
    return this.bucket(key, t).tokens > 0
  }

  chargeReads(key, readUnits, t) {
    this.bucket(key, t).tokens -= readUnits
  }

  /** Forgets partitions idle for a second: they are full again, as a new one starts. */
  prune(t) {
    for (const [key, p] of this.keys) if (t - p.refilled >= SECOND_MS && p.tokens >= 0) this.keys.delete(key)
  }
}

module.exports = { Provisioned, OnDemand, Partitions, NEW_TABLE_PEAK, PARTITION_READ_UNITS, PARTITION_WRITE_UNITS }
