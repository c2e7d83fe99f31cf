/**
 * What the bounded-open tests of every store compare (the JSONL index's, the SQL stores'): the
 * answers a resumed manager must give exactly as a full open, and a small seeded generator for
 * their random steps.
 *
 * @since 0.1.0
 */
import type * as SessionManager from "../SessionManager.js"

/** The leaf, the name, every label (with its time), the header and the context at the leaf, as plain JSON. */
export const answers = (sm: SessionManager.SessionManager) => ({
  leaf: sm.getLeafId(),
  name: sm.getSessionName(),
  labels: [...(sm.getBoundedState() ?? sm.getState()).labels].map(([t, l]) => [t, l.label, l.timestamp]).sort(),
  header: sm.getHeader(),
  context: JSON.parse(JSON.stringify(sm.buildSessionContext()))
})

/** A seeded generator of numbers in [0, 1) (mulberry32): the same steps for the same seed. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
