'use strict'
// What the fidelity layers in front of dynalite and kinesalite share: their --limits switch, and the
// log of what they refused.

/** The limits named by --limits (all, none or a comma-separated list of `known`). */
function parseLimits(text, known) {
  if (text === undefined || text === 'all' || text === '') return known
  if (text === 'none') return []
  const limits = String(text).split(',').map((s) => s.trim()).filter(Boolean)
  for (const limit of limits) {
    if (!known.includes(limit)) throw new Error('unknown limit ' + limit + '; known: ' + known.join(','))
  }
  return limits
}

/**
 * A note(resource, what) that counts refusals and writes them to standard output every 5 s
 * ("REFUSED <resource> <what>: <n>"): where a test or the local run met a rule, in the emulator's log.
 */
function refusalLog() {
  const refusals = new Map()
  setInterval(() => {
    for (const [key, n] of refusals) console.log('REFUSED ' + key + ': ' + n)
    refusals.clear()
  }, 5000).unref()
  return (resource, what) => {
    const key = resource + ' ' + what
    refusals.set(key, (refusals.get(key) || 0) + 1)
  }
}

module.exports = { parseLimits, refusalLog }
