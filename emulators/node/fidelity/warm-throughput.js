'use strict'
// WarmThroughput, which dynalite drops: given in CreateTable or UpdateTable it is kept (an update
// changes the units it names, the others stay), reported by DescribeTable, and an on-demand table
// serves at least its units a second (the `on-demand` rule in docs/DESIGN.md). As DynamoDB
// documents it, the change is asynchronous and only goes up: the table stays ACTIVE while its
// WarmThroughput reports UPDATING, for the update delay after an UpdateTable and for the creation
// and update delays after a CreateTable, then ACTIVE; a value below the kept one is refused
// (ValidationException: "cannot be decreased"; the documentation names no error). The floor serves
// the new units from the request on. Whether a value above the per-table quota is refused is the
// per-table throughput quota's (throughput-quota.js).

const UNITS = ['WriteUnitsPerSecond', 'ReadUnitsPerSecond']

/** What CreateTable keeps of a table's WarmThroughput (null: none), UPDATING until `until` (layer ms). */
function created(data, until) {
  return data.WarmThroughput ? Object.assign({}, data.WarmThroughput, { until }) : null
}

/** The unit an UpdateTable's WarmThroughput would lower below the kept one, or null. */
function decrease(kept, data) {
  if (!kept || !data.WarmThroughput) return null
  return UNITS.find((unit) => data.WarmThroughput[unit] !== undefined && kept[unit] !== undefined
    && data.WarmThroughput[unit] < kept[unit]) || null
}

/** What an UpdateTable with WarmThroughput leaves kept, UPDATING until `until`. */
function updated(kept, data, until) {
  return Object.assign({}, kept || {}, data.WarmThroughput, { until })
}

/** The TableDescription's WarmThroughput at `now`, or undefined when none was given. */
function described(kept, now) {
  if (!kept) return undefined
  const out = { Status: kept.until !== undefined && now < kept.until ? 'UPDATING' : 'ACTIVE' }
  UNITS.forEach((unit) => { if (kept[unit] !== undefined) out[unit] = kept[unit] })
  return out
}

/** The units an on-demand table serves at least, writes and reads, whatever its previous peak. */
function floor(kept) {
  const warm = kept || {}
  return { write: warm.WriteUnitsPerSecond || 0, read: warm.ReadUnitsPerSecond || 0 }
}

module.exports = { created, decrease, updated, described, floor }
