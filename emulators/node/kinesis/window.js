'use strict'
// "Per second", as the Kinesis layer counts it: what was admitted in the last second of the layer's
// clock, (t - 1000 ms, t]. A sliding second rather than calendar seconds, so that no boundary lets
// twice the rate through; with the clock stopped, nothing leaves the window.

const SECOND_MS = 1000

class SlidingSecond {
  constructor() {
    this.entries = [] // { at, count, bytes }, oldest first
    this.count = 0
    this.bytes = 0
  }

  /** Drops what is older than a second at instant t. */
  prune(t) {
    while (this.entries.length > 0 && this.entries[0].at <= t - SECOND_MS) {
      const old = this.entries.shift()
      this.count -= old.count
      this.bytes -= old.bytes
    }
  }

  /** Whether count more (and bytes more) stay within the limits at instant t. */
  fits(t, count, bytes, maxCount, maxBytes) {
    this.prune(t)
    return this.count + count <= maxCount && (maxBytes === undefined || this.bytes + bytes <= maxBytes)
  }

  add(t, count, bytes) {
    const last = this.entries[this.entries.length - 1]
    if (last && last.at === t) {
      last.count += count
      last.bytes += bytes || 0
    } else {
      this.entries.push({ at: t, count, bytes: bytes || 0 })
    }
    this.count += count
    this.bytes += bytes || 0
  }
}

module.exports = { SlidingSecond, SECOND_MS }
