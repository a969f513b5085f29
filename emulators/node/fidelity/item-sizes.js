'use strict'
// Item sizes as DynamoDB counts them ("item size" and "empty attribute names" in docs/DESIGN.md):
// strings in UTF-8 bytes (dynalite counts UTF-16 units), at most 400 KB an item, a write's units
// its size in 1 KB steps; an empty attribute name refused.

const { validation } = require('./proxy')

const MAX_ITEM_BYTES = 400 * 1024

function itemBytes(item) {
  let bytes = 0
  for (const name in item) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(item[name])
  return bytes
}

function valueBytes(value) {
  if (value == null || typeof value !== 'object') return 0
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8')
  if (value.N !== undefined) return numberBytes(value.N)
  if (value.B !== undefined) return Buffer.from(value.B, 'base64').length
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1
  if (value.SS) return value.SS.reduce((s, v) => s + Buffer.byteLength(v, 'utf8'), 0)
  if (value.NS) return value.NS.reduce((s, v) => s + numberBytes(v), 0)
  if (value.BS) return value.BS.reduce((s, v) => s + Buffer.from(v, 'base64').length, 0)
  if (value.L) return 3 + value.L.reduce((s, v) => s + 1 + valueBytes(v), 0)
  if (value.M) {
    let bytes = 3
    for (const name in value.M) bytes += 1 + Buffer.byteLength(name, 'utf8') + valueBytes(value.M[name])
    return bytes
  }
  return 0
}

function numberBytes(text) {
  const digits = String(text).replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '')
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1
}

function emptyName(item) {
  for (const name in item) {
    if (name === '') return true
    const value = item[name]
    if (value && value.M && emptyName(value.M)) return true
  }
  return false
}

/** DynamoDB's ValidationException for an item it refuses, counted in `counters`; null for one it takes. */
function checkItem(item, counters) {
  if (emptyName(item)) {
    return validation('One or more parameter values are not valid. A value specified for a secondary index key '
      + 'is not supported. An attribute name cannot be empty')
  }
  if (itemBytes(item) > MAX_ITEM_BYTES) {
    counters.refusedItems++
    return validation('Item size has exceeded the maximum allowed size')
  }
  return null
}

/** The write units a put of the item costs: its size in 1 KB steps, at least one. */
function writeUnits(item) {
  return Math.max(1, Math.ceil(itemBytes(item) / 1024))
}

module.exports = { itemBytes, checkItem, writeUnits, MAX_ITEM_BYTES }
