'use strict'
// WarmThroughput, which dynalite drops: given in CreateTable or UpdateTable it is kept (an update
// changes the units it names, the others stay), reported by DescribeTable, and an on-demand table
// serves at least its units a second (the `on-demand` rule in docs/DESIGN.md). Whether a value
// above the per-table quota is refused is the per-table throughput quota's (throughput-quota.js).

/** What CreateTable keeps of a table's WarmThroughput (null: none). */
function created(data) {
  return data.WarmThroughput || null
}

/** What an UpdateTable with WarmThroughput leaves kept. */
function updated(kept, data) {
  return Object.assign({}, kept || {}, data.WarmThroughput)
}

/** The TableDescription's WarmThroughput, or undefined when none was given. */
function described(kept) {
  return kept ? Object.assign({ Status: 'ACTIVE' }, kept) : undefined
}

/** The units an on-demand table serves at least, writes and reads, whatever its previous peak. */
function floor(kept) {
  const warm = kept || {}
  return { write: warm.WriteUnitsPerSecond || 0, read: warm.ReadUnitsPerSecond || 0 }
}

module.exports = { created, updated, described, floor }
