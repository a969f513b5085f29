'use strict'
// DynamoDB's quotas on changing a table, each read from its documentation (quoted in
// docs/DESIGN.md), written here without looking at the job's own reading (rotation's DecreaseQuota).

const HOUR_MS = 3600 * 1000
const DAY_MS = 24 * HOUR_MS

/**
 * The quotas page: "A decrease is allowed up to four times, anytime per day. A day is defined
 * according to Universal Time Coordinated (UTC)." and, further, one more decrease whenever there
 * was none in the past hour, "effectively" at most 27 in a day (4 in the first hour, then one in
 * each later hour). `decreases` are the instants of the table's past decreases.
 */
function decreaseAllowed(decreases, t) {
  const today = decreasesOn(decreases, t)
  if (today >= 27) return false
  if (today < 4) return true
  return !decreases.some((d) => d > t - HOUR_MS && d <= t)
}

/** How many of `decreases` fall on the UTC day of `t` (DescribeTable's NumberOfDecreasesToday). */
function decreasesOn(decreases, t) {
  const day = Math.floor(t / DAY_MS)
  return decreases.filter((d) => Math.floor(d / DAY_MS) === day).length
}

/**
 * "You can switch tables from provisioned capacity mode to on-demand mode up to four times in a
 * 24-hour rolling window. You can switch tables from on-demand mode to provisioned capacity mode at
 * any time." `switches` are the instants of the table's past switches to on-demand.
 */
function switchToOnDemandAllowed(switches, t) {
  return switches.filter((s) => s > t - DAY_MS && s <= t).length < 4
}

/** "no more than two table class updates on your table are allowed in a 30-day trailing period" */
function classChangeAllowed(changes, t) {
  return changes.filter((c) => c > t - 30 * DAY_MS && c <= t).length < 2
}

/** Keeps what a quota can still need: a day of decreases, a day of switches, 30 days of class changes. */
function trim(instants, t, keepMs) {
  return instants.filter((i) => i > t - keepMs)
}

module.exports = { decreaseAllowed, decreasesOn, switchToOnDemandAllowed, classChangeAllowed, trim, HOUR_MS, DAY_MS }
