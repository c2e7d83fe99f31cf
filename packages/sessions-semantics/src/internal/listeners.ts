/**
 * A synchronous listener registry: listeners run in the order they were added; a listener that
 * throws (or returns a promise that rejects) never stops the others or the caller.
 *
 * @internal
 */

/** A listener; its return value is ignored (a returned promise's rejection is swallowed). */
export type Listener<A> = (value: A) => unknown

interface Slot<A> {
  readonly listener: Listener<A>
}

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

/** An ordered set of listeners; the same function added twice is called twice. */
export class Listeners<A> {
  private readonly slots = new Set<Slot<A>>()

  /** How many listeners are registered. */
  get size(): number {
    return this.slots.size
  }

  /** Adds a listener; the returned function removes it (calling it again does nothing). */
  add(listener: Listener<A>): () => void {
    const slot: Slot<A> = { listener }
    this.slots.add(slot)
    return () => {
      this.slots.delete(slot)
    }
  }

  /**
   * Calls every listener registered when the call starts and still registered when its turn
   * comes; returns what the failing ones threw.
   */
  emit(value: A): Array<unknown> {
    const failures: Array<unknown> = []
    for (const slot of Array.from(this.slots)) {
      if (!this.slots.has(slot)) continue
      try {
        const result = slot.listener(value)
        if (isThenable(result)) result.then(undefined, () => undefined)
      } catch (error) {
        failures.push(error)
      }
    }
    return failures
  }
}
