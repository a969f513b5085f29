'use strict'
// The per-table throughput quota (--max-table-units, 40,000 by default; "per-table throughput
// quota" in docs/DESIGN.md): "Per table: 40,000 read request units and 40,000 write request units"
// (on-demand) and "40,000 read capacity units and 40,000 write capacity units" (provisioned). What
// an on-demand table serves at the quota is throughput.js's; this file answers the table changes
// that ask for more. A table is pre-warmed "up to" the quota and its on-demand throughput is
// "bounded by" it, but no page names the answer to a WarmThroughput or OnDemandThroughput above
// it: LimitExceededException (the default, as DynamoDB's other quotas on a table change answer),
// ValidationException or acceptance, as a test picks (aboveTableQuota).

const { error, validation } = require('./proxy')

/** The answers to a WarmThroughput or OnDemandThroughput above the quota that a test can pick. */
const ANSWERS = ['LimitExceededException', 'ValidationException', 'accepted']

function throughputQuota(ctx) {
  const { settings, counters, note, limited } = ctx

  /**
   * A CreateTable or UpdateTable that sets provisioned throughput (rule `throughput`) above the
   * quota answers LimitExceededException; OnDemandThroughput or WarmThroughput (rule `on-demand`)
   * above it, the answer settings.aboveTableQuota names; null when nothing is refused.
   */
  function aboveTableQuota(data) {
    const pt = data.ProvisionedThroughput || {}
    const max = data.OnDemandThroughput || {}
    const warm = data.WarmThroughput || {}
    const requested = []
    if (limited('throughput')) {
      requested.push(['ProvisionedThroughput.WriteCapacityUnits', pt.WriteCapacityUnits, 'LimitExceededException'],
        ['ProvisionedThroughput.ReadCapacityUnits', pt.ReadCapacityUnits, 'LimitExceededException'])
    }
    if (limited('on-demand')) {
      const answer = settings.aboveTableQuota
      requested.push(['OnDemandThroughput.MaxWriteRequestUnits', max.MaxWriteRequestUnits, answer],
        ['OnDemandThroughput.MaxReadRequestUnits', max.MaxReadRequestUnits, answer],
        ['WarmThroughput.WriteUnitsPerSecond', warm.WriteUnitsPerSecond, answer],
        ['WarmThroughput.ReadUnitsPerSecond', warm.ReadUnitsPerSecond, answer])
    }
    const over = requested.find(([, units, answer]) => units > settings.maxTableUnits && answer !== 'accepted')
    if (!over) return null
    counters.refusedTableUnits++
    note(data.TableName, over[0] + ' above the per-table quota')
    const what = over[0] + ' ' + over[1] + ' is above the per-table throughput quota of ' + settings.maxTableUnits
      + ' units. Table: ' + data.TableName
    return over[2] === 'ValidationException'
      ? validation('One or more parameter values were invalid: ' + what)
      : error(400, 'LimitExceededException', 'Subscriber limit exceeded: ' + what)
  }

  return { aboveTableQuota }
}

module.exports = { throughputQuota, ANSWERS }
