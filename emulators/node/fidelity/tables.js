'use strict'
// A table as dynalite holds it, and DynamoDB's answers about one that does not exist or that is
// still changing: ResourceNotFoundException, and ResourceInUseException for a change while it is
// not ACTIVE (the "tables take time" rule in docs/DESIGN.md; the states themselves: states.js).

const { error } = require('./proxy')

function tables(ctx) {
  const { store, counters, note } = ctx

  function tableOf(name) {
    return new Promise((resolve) => store.getTable(name, false, (err, table) => resolve(err ? null : table)))
  }

  async function countTables() {
    let count = 0
    await new Promise((resolve) => {
      const stream = store.tableDb.createKeyStream()
      stream.on('data', () => count++)
      stream.on('end', resolve)
      stream.on('error', resolve)
    })
    return count
  }

  function arnOf(name) {
    return 'arn:aws:dynamodb:' + process.env.AWS_REGION + ':' + process.env.AWS_ACCOUNT_ID + ':table/' + name
  }

  function notFound(name) {
    return error(400, 'ResourceNotFoundException', 'Requested resource not found: Table: ' + name + ' not found')
  }

  function inUse(name, status) {
    counters.refusedWhileBusy++
    note(name, 'change while ' + status)
    const what = status === 'CREATING' ? 'being created' : status === 'DELETING' ? 'being deleted' : 'being updated'
    return error(400, 'ResourceInUseException', 'Attempt to change a resource which is still in use: Table is ' + what + ': ' + name)
  }

  return { tableOf, countTables, arnOf, notFound, inUse }
}

module.exports = { tables }
