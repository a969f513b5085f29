'use strict'
// The table calls the layer takes part in: CreateTable, DescribeTable, UpdateTable and DeleteTable,
// where the table states (states.js), the options dynalite drops (metadata.js, warm-throughput.js),
// the account's table quota (`tables`), the per-table throughput quota (throughput-quota.js) and the
// quotas on changing a table (quotas.js: `decreases`, `switches`) meet; each rule is a row of
// docs/DESIGN.md's rule table.

const quotas = require('./quotas')
const warmThroughput = require('./warm-throughput')
const { ok, error, validation } = require('./proxy')

function tableCalls(ctx) {
  const { settings, counters, note, meta, capacities, counts, states, now, through, call, tableOf, countTables, arnOf,
    notFound, inUse, saveMeta, historyOf, saveHistory, describe, count, empty, limited, capacityOf, toProvisioned,
    toOnDemand, tune, aboveTableQuota } = ctx

  return {
    async CreateTable(data, req) {
      const name = data.TableName
      if (states.statusOf(name) === 'DELETING') return inUse(name, 'DELETING')
      if (limited('tables')) {
        const tables = await countTables()
        if (tables >= settings.maxTables) {
          counters.refusedTables++
          return error(400, 'LimitExceededException', 'Subscriber limit exceeded: the account has ' + tables
            + ' tables, its quota is ' + settings.maxTables)
        }
      }
      const overQuota = aboveTableQuota(data)
      if (overQuota) return overQuota
      const answer = await through(req, data)
      if (answer.status !== 200) return answer
      meta.set(name, {
        deletionProtection: !!data.DeletionProtectionEnabled,
        tableClass: data.TableClass || 'STANDARD',
        sse: data.SSESpecification || null,
        warm: warmThroughput.created(data, now() + (settings.transitions.CREATING || 0)
          + (settings.transitions.UPDATING || 0)),
        onDemand: data.OnDemandThroughput || null,
        ttl: null,
      })
      const pt = data.ProvisionedThroughput || {}
      if (pt.WriteCapacityUnits || pt.ReadCapacityUnits) {
        meta.get(name).history = Object.assign(historyOf(name), { maxWrite: pt.WriteCapacityUnits || 0,
          maxRead: pt.ReadCapacityUnits || 0 })
      }
      await saveMeta(name)
      if (Array.isArray(data.Tags) && data.Tags.length) {
        const tagged = await call('TagResource', { ResourceArn: arnOf(name), Tags: data.Tags })
        if (tagged.status !== 200) return tagged
      }
      states.begin(name, 'CREATING')
      capacities.delete(name)
      empty(name)
      answer.data.TableDescription = describe(answer.data.TableDescription)
      return answer
    },

    async DescribeTable(data, req) {
      const name = data.TableName
      const deleting = states.deleting(name)
      if (deleting) return ok({ Table: deleting })
      if (counts.has(name) || await tableOf(name)) await count(name)
      await capacityOf(name)
      const answer = await through(req, data)
      if (answer.status === 200) answer.data.Table = describe(answer.data.Table)
      return answer
    },

    async UpdateTable(data, req) {
      const name = data.TableName
      const table = await tableOf(name)
      if (!table) return states.deleting(name) ? inUse(name, 'DELETING') : notFound(name)
      const status = states.statusOf(name)
      if (status !== 'ACTIVE') return inUse(name, status)
      const overQuota = aboveTableQuota(data)
      if (overQuota) return overQuota
      const m = meta.get(name) || {}
      const lowered = warmThroughput.decrease(m.warm, data)
      if (lowered) {
        return validation('One or more parameter values were invalid: WarmThroughput ' + lowered + ' cannot be'
          + ' decreased (' + m.warm[lowered] + ' -> ' + data.WarmThroughput[lowered] + '). Table: ' + name)
      }
      const h = historyOf(name)
      const c = await capacityOf(name)
      const t = now()
      const extra = ['DeletionProtectionEnabled', 'TableClass', 'WarmThroughput', 'OnDemandThroughput']
        .filter((key) => data[key] !== undefined)
      const pt = data.ProvisionedThroughput
      const current = table.ProvisionedThroughput || {}
      const switchToOnDemand = data.BillingMode === 'PAY_PER_REQUEST' && !c.onDemand
      const switchToProvisioned = data.BillingMode === 'PROVISIONED' && c.onDemand
      const decrease = !!pt && !c.onDemand && (pt.WriteCapacityUnits < current.WriteCapacityUnits
        || pt.ReadCapacityUnits < current.ReadCapacityUnits)
      const increase = !!pt && !c.onDemand && (pt.WriteCapacityUnits > current.WriteCapacityUnits
        || pt.ReadCapacityUnits > current.ReadCapacityUnits)
      const classChange = data.TableClass !== undefined && data.TableClass !== (m.tableClass || 'STANDARD')
      if (decrease && limited('decreases') && !quotas.decreaseAllowed(h.decreases, t)) {
        counters.refusedDecreases++
        note(name, 'decrease beyond the quota')
        const last = Math.max(...h.decreases)
        return error(400, 'LimitExceededException', 'Subscriber limit exceeded: Provisioned throughput decreases are '
          + 'limited within a given UTC day. After the first 4 decreases, each subsequent decrease in the same UTC day '
          + 'can be performed at most once every 3600 seconds. Number of decreases today: '
          + quotas.decreasesOn(h.decreases, t) + '. Last decrease at ' + new Date(last).toISOString() + '. Table: ' + name)
      }
      if (switchToOnDemand && limited('switches') && !quotas.switchToOnDemandAllowed(h.toOnDemand, t)) {
        counters.refusedSwitches++
        return error(400, 'LimitExceededException', 'Subscriber limit exceeded: a table can switch from provisioned to '
          + 'on-demand capacity mode at most 4 times in a rolling 24 hours. Table: ' + name)
      }
      if (classChange && limited('switches') && !quotas.classChangeAllowed(h.classChanges, t)) {
        counters.refusedSwitches++
        return error(400, 'LimitExceededException', 'Subscriber limit exceeded: no more than two table class updates '
          + 'are allowed in a 30-day trailing period. Table: ' + name)
      }
      const forDynalite = Object.assign({}, data)
      extra.forEach((key) => delete forDynalite[key])
      let answer
      if (Object.keys(forDynalite).some((key) => key !== 'TableName')) {
        answer = await through(req, forDynalite)
        if (answer.status !== 200) return answer
      } else if (extra.length === 0) {
        return through(req, data)
      } else {
        answer = ok({ TableDescription: table })
      }
      if (data.DeletionProtectionEnabled !== undefined) m.deletionProtection = !!data.DeletionProtectionEnabled
      if (data.TableClass !== undefined) m.tableClass = data.TableClass
      if (data.WarmThroughput !== undefined) {
        m.warm = warmThroughput.updated(m.warm, data, t + (settings.transitions.UPDATING || 0))
      }
      if (data.OnDemandThroughput !== undefined) m.onDemand = data.OnDemandThroughput
      if (data.SSESpecification !== undefined) m.sse = data.SSESpecification
      meta.set(name, m)
      if (decrease) {
        h.decreases.push(t)
        h.lastDecrease = t
      }
      if (increase) h.lastIncrease = t
      if (switchToOnDemand) h.toOnDemand.push(t)
      if (classChange) h.classChanges.push(t)
      if (pt) {
        h.maxWrite = Math.max(h.maxWrite, pt.WriteCapacityUnits || 0)
        h.maxRead = Math.max(h.maxRead, pt.ReadCapacityUnits || 0)
      }
      await saveHistory(name, h, t)
      // DeletionProtectionEnabled, WarmThroughput and OnDemandThroughput alone leave the table ACTIVE
      const updating = pt || switchToOnDemand || switchToProvisioned || classChange || data.SSESpecification
        || data.GlobalSecondaryIndexUpdates || data.StreamSpecification
      const until = updating ? states.begin(name, 'UPDATING') : t
      if (switchToOnDemand) {
        c.pending = { at: until, apply: () => toOnDemand(name, c) }
      } else if (switchToProvisioned) {
        c.pending = { at: until, apply: () => toProvisioned(c, pt.WriteCapacityUnits, pt.ReadCapacityUnits, until) }
      } else if (pt && !c.onDemand) {
        c.write.change(pt.WriteCapacityUnits, until)
        c.read.change(pt.ReadCapacityUnits, until)
      }
      tune(name, c)
      answer.data.TableDescription = describe(answer.data.TableDescription)
      return answer
    },

    async DeleteTable(data, req) {
      const name = data.TableName
      const table = await tableOf(name)
      if (!table) return states.deleting(name) ? ok({ TableDescription: states.deleting(name) }) : notFound(name)
      const status = states.statusOf(name)
      if (status !== 'ACTIVE') return inUse(name, status)
      if ((meta.get(name) || {}).deletionProtection) {
        return validation('Resource cannot be deleted as it is currently protected against deletion. Disable '
          + 'deletion protection first.')
      }
      const answer = await through(req, data)
      if (answer.status === 200) {
        answer.data.TableDescription = describe(answer.data.TableDescription)
        answer.data.TableDescription.TableStatus = 'DELETING'
        states.begin(name, 'DELETING', answer.data.TableDescription)
        meta.delete(name)
        capacities.delete(name)
        counts.delete(name)
        await saveMeta(name)
      }
      return answer
    },
  }
}

module.exports = { tableCalls }
