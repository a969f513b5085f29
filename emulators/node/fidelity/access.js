'use strict'
// IAM's answer to a call the caller's policy does not allow, so that a test sees what a client sees
// when a permission is missing: the operations a test names (POST /__fidelity {"deny": ["ListTables"]};
// reset, or {"deny": []}, allows them again) are answered as DynamoDB answers them, HTTP 400
// AccessDeniedException naming the action and the resource, before any other rule or dynalite sees
// them ("AccessDeniedException" in docs/DESIGN.md). Nothing is denied unless a test asks.

const { error } = require('./proxy')

const ACCOUNT = '000000000000'

function access(ctx) {
  const { settings, arnOf } = ctx

  /** The answer to `operation` with the request body `body` when it is denied, else undefined. */
  function denied(operation, body) {
    if (!settings.deny.has(operation)) return undefined
    let table
    try {
      table = JSON.parse(body.toString('utf8')).TableName
    } catch (e) {
      table = undefined
    }
    const resource = table ? arnOf(table) : 'arn:aws:dynamodb:us-east-1:' + ACCOUNT + ':table/*'
    return error(400, 'AccessDeniedException', 'User: arn:aws:iam::' + ACCOUNT + ':user/local is not authorized to'
      + ' perform: dynamodb:' + operation + ' on resource: ' + resource + ' because no identity-based policy allows'
      + ' the dynamodb:' + operation + ' action', 'com.amazon.coral.service#')
  }

  return { denied }
}

module.exports = { access }
