'use strict'
// ItemCount and TableSizeBytes, which dynalite always reports as 0: counted from its store, each
// item at its size as DynamoDB counts it (item-sizes.js). DynamoDB itself refreshes them about
// every six hours; the layer at once while a table holds fewer than RECOUNT_SMALL items, else at
// most every RECOUNT_MS ("ItemCount, TableSizeBytes" in docs/DESIGN.md).

const { itemBytes } = require('./item-sizes')

const RECOUNT_SMALL = 5000
const RECOUNT_MS = 10 * 1000

function itemCounts(ctx) {
  const { store, counts } = ctx

  /** Counts a table's items and their size when it was written since the last count (see above). */
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

  /** Marks a table written: its next DescribeTable counts it again. */
  function written(name) {
    const entry = counts.get(name)
    if (entry) entry.dirty = true
  }

  /** A new table: empty, nothing to count. */
  function empty(name) {
    counts.set(name, { items: 0, bytes: 0, dirty: false, countedAt: Date.now() })
  }

  return { count, written, empty }
}

module.exports = { itemCounts }
