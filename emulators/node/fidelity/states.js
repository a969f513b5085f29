'use strict'
// Table states that take time, on the layer's clock: dynalite itself flips them at once (its
// delays are 0), the layer reports CREATING / UPDATING / DELETING until the configured delay has
// passed on its clock, so a stopped clock holds a table in its state and advancing it ends it.

class TableStates {
  /** `clock` reads the layer's now; `delays` returns { CREATING, UPDATING, DELETING } in ms. */
  constructor(clock, delays) {
    this.clock = clock
    this.delays = delays
    this.tables = new Map() // name -> { status, until, description }
  }

  /** The table enters `status` now, until its delay has passed (no delay: it stays ACTIVE). */
  begin(name, status, description) {
    const ms = this.delays()[status] || 0
    if (ms > 0) this.tables.set(name, { status, until: this.clock() + ms, description })
    else this.tables.delete(name)
    return this.until(name)
  }

  /** When the table's current transition ends (now when it has none). */
  until(name) {
    const state = this.current(name)
    return state ? state.until : this.clock()
  }

  /** 'ACTIVE', or the state it is still in; 'DELETING' for a table dynalite has already dropped. */
  statusOf(name) {
    const state = this.current(name)
    return state ? state.status : 'ACTIVE'
  }

  /** The description a deleted table keeps while it is DELETING, else null. */
  deleting(name) {
    const state = this.current(name)
    return state && state.status === 'DELETING' ? Object.assign({}, state.description, { TableStatus: 'DELETING' }) : null
  }

  current(name) {
    const state = this.tables.get(name)
    if (state && this.clock() >= state.until) {
      this.tables.delete(name)
      return null
    }
    return state || null
  }
}

module.exports = { TableStates }
