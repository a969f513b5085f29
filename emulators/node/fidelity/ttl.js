'use strict'
// UpdateTimeToLive and DescribeTimeToLive, which dynalite lacks: TTL kept per table beside its
// options (metadata.js), "already enabled" / "already disabled" refused, and at most one change an
// hour per table on the layer's clock ("UpdateTimeToLive / DescribeTimeToLive" in docs/DESIGN.md).

const { ok, validation } = require('./proxy')
const { HOUR_MS } = require('./quotas')

function ttl(ctx) {
  const { meta, counters, states, now, tableOf, notFound, inUse, saveMeta } = ctx

  return {
    async UpdateTimeToLive(data) {
      const name = data.TableName
      const spec = data.TimeToLiveSpecification
      if (!name || !spec || typeof spec.Enabled !== 'boolean' || !spec.AttributeName) {
        return validation('1 validation error detected: TimeToLiveSpecification with Enabled and AttributeName is required')
      }
      const table = await tableOf(name)
      if (!table) return states.deleting(name) ? inUse(name, 'DELETING') : notFound(name)
      const status = states.statusOf(name)
      if (status !== 'ACTIVE') return inUse(name, status)
      const m = meta.get(name) || {}
      const kept = m.ttl || { enabled: false }
      if (kept.enabled === spec.Enabled) {
        return validation(spec.Enabled ? 'TimeToLive is already enabled' : 'TimeToLive is already disabled')
      }
      if (kept.changedAt != null && now() - kept.changedAt < HOUR_MS) {
        counters.refusedTtlChanges++
        return validation('Time to live has been modified multiple times within a fixed interval')
      }
      m.ttl = { enabled: spec.Enabled, attribute: spec.AttributeName, changedAt: now() }
      meta.set(name, m)
      await saveMeta(name)
      return ok({ TimeToLiveSpecification: spec })
    },

    async DescribeTimeToLive(data) {
      const table = await tableOf(data.TableName)
      if (!table) return notFound(data.TableName)
      const kept = (meta.get(data.TableName) || {}).ttl
      if (!kept) return ok({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } })
      return ok({ TimeToLiveDescription: kept.enabled
        ? { TimeToLiveStatus: 'ENABLED', AttributeName: kept.attribute }
        : { TimeToLiveStatus: 'DISABLED' } })
    },
  }
}

module.exports = { ttl }
