'use strict'
// The per-table throughput quota (--max-table-units, 40,000 by default; "per-table throughput
// quota" in docs/DESIGN.md): "Per table: 40,000 read request units and 40,000 write request units"
// (on-demand) and "40,000 read capacity units and 40,000 write capacity units" (provisioned). What
// an on-demand table serves at the quota is throughput.js's; this file answers the table changes
// that ask for more.

const { error } = require('./proxy')

function throughputQuota(ctx) {
  const { settings, counters, note, limited } = ctx

  /**
   * A CreateTable or UpdateTable that sets provisioned throughput (rule `throughput`),
   * OnDemandThroughput or WarmThroughput (rule `on-demand`) above the quota answers
   * LimitExceededException; null when none does.
   */
  function aboveTableQuota(data) {
    const pt = data.ProvisionedThroughput || {}
    const max = data.OnDemandThroughput || {}
    const warm = data.WarmThroughput || {}
    const requested = []
    if (limited('throughput')) {
      requested.push(['ProvisionedThroughput.WriteCapacityUnits', pt.WriteCapacityUnits],
        ['ProvisionedThroughput.ReadCapacityUnits', pt.ReadCapacityUnits])
    }
    if (limited('on-demand')) {
      requested.push(['OnDemandThroughput.MaxWriteRequestUnits', max.MaxWriteRequestUnits],
        ['OnDemandThroughput.MaxReadRequestUnits', max.MaxReadRequestUnits],
        ['WarmThroughput.WriteUnitsPerSecond', warm.WriteUnitsPerSecond],
        ['WarmThroughput.ReadUnitsPerSecond', warm.ReadUnitsPerSecond])
    }
    const over = requested.find(([, units]) => units > settings.maxTableUnits)
    if (!over) return null
    counters.refusedTableUnits++
    note(data.TableName, over[0] + ' above the per-table quota')
    return error(400, 'LimitExceededException', 'Subscriber limit exceeded: ' + over[0] + ' ' + over[1]
      + ' is above the per-table throughput quota of ' + settings.maxTableUnits + ' units. Table: ' + data.TableName)
  }

  return { aboveTableQuota }
}

module.exports = { throughputQuota }
