'use strict'
// The item calls the layer takes part in: items of a CREATING table are not found (states.js), an
// item is checked for its size (item-sizes.js), each write and read is admitted by its table's and
// its partition's capacity (admission.js), and a BatchWriteItem holds at most 25 writes across its
// tables ("25 writes per BatchWriteItem" in docs/DESIGN.md); writes beyond the capacity come back
// as UnprocessedItems.

const { validation } = require('./proxy')
const { checkItem, writeUnits } = require('./item-sizes')

const MAX_BATCH_WRITES = 25

function itemCalls(ctx) {
  const { counters, note, states, capacities, through, notFound, written, capacityOf, keyOf, admitWrite, admitRead,
    chargeRead, throttled } = ctx

  /** ResourceNotFoundException for a table that does not exist or is still CREATING, as DynamoDB answers item calls; else null. */
  function notActive(name) {
    if (states.statusOf(name) !== 'CREATING') return null
    note(name, 'item call while CREATING')
    counters.notYetActive++
    return notFound(name)
  }

  async function single(data, item, key) {
    if (item) {
      const bad = checkItem(item, counters)
      if (bad) return bad
    }
    const missing = notActive(data.TableName)
    if (missing) return missing
    const c = await capacityOf(data.TableName)
    const partitionKey = c ? keyOf(c, key) : undefined
    const reason = c ? admitWrite(c, partitionKey, item ? writeUnits(item) : 1) : null
    if (reason) {
      note(data.TableName, 'write ' + reason)
      counters.throttledWrites++
      counters.throttledCalls++
      if (reason === 'KeyRange' && partitionKey !== undefined) counters.throttledByPartition++
      return throttled({ [data.TableName]: reason }, 'Write')
    }
    written(data.TableName)
    return undefined
  }

  /** A read admitted while its table and partition have capacity left, charged what dynalite says it consumed. */
  async function read(data, req, key) {
    const name = data.TableName
    const missing = notActive(name)
    if (missing) return missing
    const c = await capacityOf(name)
    if (!c) return undefined
    const partitionKey = keyOf(c, key)
    const reason = admitRead(c, partitionKey)
    if (reason) {
      note(name, 'read ' + reason)
      counters.throttledReads++
      counters.throttledCalls++
      return throttled({ [name]: reason }, 'Read')
    }
    const answer = await through(req, Object.assign({}, data, { ReturnConsumedCapacity: 'TOTAL' }))
    if (answer.status !== 200) return answer
    const units = (answer.data.ConsumedCapacity || {}).CapacityUnits || 0
    // a Query reads one partition: the one its items come from
    const readKey = partitionKey !== undefined ? partitionKey : data.KeyConditionExpression || data.KeyConditions
      ? keyOf(c, (answer.data.Items || [])[0]) : undefined
    chargeRead(c, readKey, units)
    if (!data.ReturnConsumedCapacity || data.ReturnConsumedCapacity === 'NONE') delete answer.data.ConsumedCapacity
    return answer
  }

  return {
    async BatchWriteItem(data, req) {
      const requestItems = data.RequestItems || {}
      let writes = 0
      for (const name in requestItems) writes += (requestItems[name] || []).length
      if (writes > MAX_BATCH_WRITES) {
        counters.refusedBatches++
        return validation('Too many items requested for the BatchWriteItem call')
      }
      for (const name in requestItems) {
        const missing = notActive(name)
        if (missing) return missing
      }
      const admitted = {}
      const unprocessed = {}
      const reasons = {}
      let anyAdmitted = false
      for (const name in requestItems) {
        const c = await capacityOf(name)
        for (const write of requestItems[name] || []) {
          const item = write && write.PutRequest && write.PutRequest.Item
          if (item) {
            const bad = checkItem(item, counters)
            if (bad) return bad
          }
          const key = c ? keyOf(c, item || (write && write.DeleteRequest && write.DeleteRequest.Key)) : undefined
          const reason = c ? admitWrite(c, key, item ? writeUnits(item) : 1) : null
          if (reason) {
            (unprocessed[name] = unprocessed[name] || []).push(write)
            reasons[name] = reason
            note(name, 'write ' + reason)
            counters.throttledWrites++
            if (reason === 'KeyRange' && key !== undefined) counters.throttledByPartition++
          } else {
            (admitted[name] = admitted[name] || []).push(write)
            anyAdmitted = true
          }
        }
      }
      if (!anyAdmitted && writes > 0) {
        counters.throttledCalls++
        return throttled(reasons, 'Write')
      }
      for (const name in admitted) written(name)
      if (Object.keys(unprocessed).length === 0) return undefined
      const answer = await through(req, Object.assign({}, data, { RequestItems: admitted }))
      if (answer.status !== 200) return answer
      const merged = Object.assign({}, answer.data.UnprocessedItems || {})
      for (const name in unprocessed) merged[name] = (merged[name] || []).concat(unprocessed[name])
      answer.data.UnprocessedItems = merged
      return answer
    },

    async PutItem(data) {
      return single(data, data.Item, data.Item)
    },

    async UpdateItem(data) {
      return single(data, null, data.Key)
    },

    async DeleteItem(data) {
      return single(data, null, data.Key)
    },

    async GetItem(data, req) {
      return read(data, req, data.Key)
    },

    async Query(data, req) {
      return read(data, req, undefined)
    },

    async Scan(data, req) {
      return read(data, req, undefined)
    },

    async BatchGetItem(data, req) {
      const names = Object.keys(data.RequestItems || {})
      const reasons = {}
      for (const name of names) {
        const missing = notActive(name)
        if (missing) return missing
        const c = await capacityOf(name)
        const reason = c ? admitRead(c, undefined) : null
        if (reason) reasons[name] = reason
      }
      if (Object.keys(reasons).length > 0) {
        counters.throttledReads++
        counters.throttledCalls++
        return throttled(reasons, 'Read')
      }
      const answer = await through(req, Object.assign({}, data, { ReturnConsumedCapacity: 'TOTAL' }))
      if (answer.status !== 200) return answer
      for (const consumed of answer.data.ConsumedCapacity || []) {
        const c = capacities.get(consumed.TableName)
        if (c) chargeRead(c, undefined, consumed.CapacityUnits || 0)
      }
      if (!data.ReturnConsumedCapacity || data.ReturnConsumedCapacity === 'NONE') delete answer.data.ConsumedCapacity
      return answer
    },
  }
}

module.exports = { itemCalls }
