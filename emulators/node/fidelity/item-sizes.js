'use strict'
// Item sizes as DynamoDB's "Item sizes and formats" page counts them ("item size" and "empty
// attribute names" in docs/DESIGN.md): "The total size of an item is the sum of the lengths of its
// attribute names and values", strings in UTF-8 bytes (dynalite counts UTF-16 units), numbers by
// their significant digits, at most 400 KB an item, a write's units its size in 1 KB steps; an empty
// attribute name refused wherever it is, in maps inside lists too.

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

const NUMBER = /^\s*([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*$/

/**
 * "Numbers are variable length, with up to 38 significant digits. Leading and trailing zeroes are
 * trimmed. The size of a number is approximately (number of UTF-8-encoded bytes of attribute name)
 * + (1 byte per two significant digits) + (1 byte)." Where "approximately" leaves it open the
 * layer takes the stricter reading, as dynalite counts too: the digits pair up from the decimal
 * point (1.5 is 01.50, two pairs; 15 one), and a negative number takes one more byte. Zero has no
 * significant digit: 1 byte. Text that is no number (dynalite refuses it) counts its digits.
 */
function numberBytes(text) {
  const m = NUMBER.exec(String(text))
  if (!m) return Math.ceil(String(text).replace(/\D/g, '').length / 2) + 1
  const whole = m[2] || ''
  const all = whole + (m[3] || '')
  const first = all.search(/[1-9]/)
  if (first < 0) return 1
  let last = all.length - 1
  while (all[last] === '0') last--
  const digits = last - first + 1
  const power = whole.length - 1 - first + Number(m[4] || 0) // of the first significant digit
  const pairs = Math.ceil((digits + (((power % 2) + 2) % 2 === 0 ? 1 : 0)) / 2)
  return 1 + pairs + (m[1] === '-' ? 1 : 0)
}

function emptyName(item) {
  for (const name in item) {
    if (name === '' || emptyNameIn(item[name])) return true
  }
  return false
}

/** Whether a map anywhere in the value, in lists as in maps, has an empty attribute name. */
function emptyNameIn(value) {
  if (value && value.M) return emptyName(value.M)
  if (value && Array.isArray(value.L)) return value.L.some(emptyNameIn)
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
