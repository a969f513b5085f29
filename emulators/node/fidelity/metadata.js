'use strict'
// What DynamoDB reports of a table and dynalite drops: DeletionProtectionEnabled, TableClass,
// SSESpecification, WarmThroughput, OnDemandThroughput, TTL and each table's quota history (its
// decreases, switches to on-demand, class changes and highest provisioned units), kept beside
// dynalite's tables (in its LevelDB with --path) and added to every TableDescription, with
// ItemCount and TableSizeBytes (item-counts.js), the table's state (states.js),
// NumberOfDecreasesToday and LastDecreaseDateTime (quotas.js) ("kept and reported" in docs/DESIGN.md).

const quotas = require('./quotas')
const warmThroughput = require('./warm-throughput')

function metadata(ctx) {
  const { meta, metaDb, counts, states, now } = ctx

  async function loadMeta() {
    for await (const [name, value] of iterate(metaDb)) meta.set(name, value)
  }

  function iterate(db) {
    const stream = db.createReadStream()
    const entries = []
    return {
      async * [Symbol.asyncIterator]() {
        await new Promise((resolve, reject) => {
          stream.on('data', (d) => entries.push([d.key, d.value]))
          stream.on('end', resolve)
          stream.on('error', reject)
        })
        yield * entries
      },
    }
  }

  function saveMeta(name) {
    const value = meta.get(name)
    return new Promise((resolve) => {
      const done = () => resolve()
      if (value) metaDb.put(name, value, done)
      else metaDb.del(name, done)
    })
  }

  /**
   * The quota history of a table: its decreases (those a quota still needs), the last decrease and
   * increase ever, switches to on-demand, class changes, highest provisioned units.
   */
  function historyOf(name) {
    const m = meta.get(name) || {}
    const h = Object.assign({ decreases: [], lastDecrease: null, toOnDemand: [], classChanges: [], lastIncrease: null,
      maxWrite: 0, maxRead: 0 }, m.history || {})
    return h
  }

  async function saveHistory(name, h, t) {
    const m = meta.get(name) || {}
    h.decreases = quotas.trim(h.decreases, t, 2 * quotas.DAY_MS)
    h.toOnDemand = quotas.trim(h.toOnDemand, t, quotas.DAY_MS)
    h.classChanges = quotas.trim(h.classChanges, t, 30 * quotas.DAY_MS)
    m.history = h
    meta.set(name, m)
    await saveMeta(name)
  }

  /** The options DynamoDB reports and dynalite drops, added to a TableDescription. */
  function describe(description) {
    if (!description) return description
    const m = meta.get(description.TableName) || {}
    const out = Object.assign({}, description)
    out.DeletionProtectionEnabled = !!m.deletionProtection
    out.TableClassSummary = { TableClass: m.tableClass || 'STANDARD' }
    if (m.sse && m.sse.Enabled) {
      out.SSEDescription = { Status: 'ENABLED', SSEType: m.sse.SSEType || 'KMS',
        KMSMasterKeyArn: m.sse.KMSMasterKeyId || 'arn:aws:kms:us-east-1:000000000000:key/aws-managed' }
    }
    if (m.warm) out.WarmThroughput = warmThroughput.described(m.warm, now())
    if (m.onDemand) out.OnDemandThroughput = m.onDemand
    const count = counts.get(description.TableName)
    if (count) {
      out.ItemCount = count.items
      out.TableSizeBytes = count.bytes
    }
    if (out.TableStatus !== 'DELETING') out.TableStatus = states.statusOf(description.TableName)
    if (out.ProvisionedThroughput) {
      const h = historyOf(description.TableName)
      const pt = Object.assign({}, out.ProvisionedThroughput)
      pt.NumberOfDecreasesToday = quotas.decreasesOn(h.decreases, now())
      // "The date and time of the last provisioned throughput decrease for this table": kept however
      // long ago, where the quota's own count forgets a decrease after two days
      const lastDecrease = h.lastDecrease != null ? h.lastDecrease : h.decreases.length ? Math.max(...h.decreases) : null
      if (lastDecrease != null) pt.LastDecreaseDateTime = lastDecrease / 1000
      else delete pt.LastDecreaseDateTime
      if (h.lastIncrease) pt.LastIncreaseDateTime = h.lastIncrease / 1000
      out.ProvisionedThroughput = pt
    }
    return out
  }

  return { loadMeta, saveMeta, historyOf, saveHistory, describe }
}

module.exports = { metadata }
