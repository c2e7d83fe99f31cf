/**
 * What the bounded-open tests of every store compare (the conformance suite's, the JSONL index's,
 * the SQL stores'): the answers a resumed manager must give exactly as a full open, a small seeded
 * generator, the random walk of writes (the manager's, another manager's, another tool's raw rows)
 * after each step of which a resume must still answer so, a compacted session whose summary is
 * written, and the bounded opens made while another process appends, with the full folds of the
 * rows each covered; and the synchronous reads of a bounded manager, each of which must answer as
 * the full open's or throw `SessionNotLoadedError`, loading nothing.
 *
 * @since 0.1.0
 */
import { SessionContext, type SessionState, Tree } from "@branchlog/session-core"
import { Messages } from "@branchlog/session-core/testing"
import * as Effect from "effect/Effect"
import * as IdSource from "../IdSource.js"
import { SessionNotLoadedError } from "../SessionError.js"
import * as SessionManager from "../SessionManager.js"
import * as SessionRef from "../SessionRef.js"
import * as StoreRows from "../StoreRows.js"
import { type StoreFailure, TranscriptStore } from "../TranscriptStore.js"

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

/** JSON with every object's keys sorted: equal for values `toEqual` finds equal (as JSON: `undefined` fields dropped). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
        Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      )
      : v)

/** The answers of a full open and of a bounded open of `ref` (ids minted in memory from one deterministic source each). */
export const both = (
  ref: string,
  options: { readonly readOnly?: boolean; readonly writeIndex?: boolean } = {}
): Effect.Effect<
  {
    readonly want: ReturnType<typeof answers>
    readonly got: ReturnType<typeof answers>
    readonly bounded: boolean
    readonly manager: SessionManager.SessionManager
  },
  SessionManager.OpenError,
  SessionManager.StoreRequirement
> =>
  Effect.gen(function*() {
    const full = yield* SessionManager.open(ref, undefined, undefined, { readOnly: true, cache: false }).pipe(
      Effect.provide(IdSource.deterministic(7))
    )
    const bounded = yield* SessionManager.resume(ref, undefined, undefined, {
      readOnly: options.readOnly ?? true,
      writeIndex: options.writeIndex ?? true
    }).pipe(Effect.provide(IdSource.deterministic(7)))
    return { want: answers(full), got: answers(bounded), bounded: bounded.isBounded(), manager: bounded }
  })

/** Two resumes of `ref`, one after the other ({@link both} each): the first, and the one after it. */
export const twice = (ref: string, options: { readonly readOnly?: boolean; readonly writeIndex?: boolean } = {}) =>
  Effect.gen(function*() {
    const first = yield* both(ref, options)
    return { first, after: yield* both(ref, options) }
  })

/** A synchronous read of a bounded manager that answered otherwise than the full open (or threw otherwise). */
export interface Disagreement {
  readonly read: string
  readonly id: string | null | undefined
  readonly got: unknown
  readonly want: unknown
}

/** What {@link compareReads} found: the reads that disagreed, and how many threw `SessionNotLoadedError` or answered. */
export interface Compared {
  readonly disagreements: ReadonlyArray<Disagreement>
  readonly refused: number
  readonly answered: number
}

/**
 * The synchronous reads of `manager` (bounded or not) against `full`'s: for each of `ids`, `null`,
 * an id no session holds and (when both have the same leaf) the leaf: `getEntry`, `getBranch`,
 * `getChildren`, `getLabel`, `buildSessionContext`, `hasThinkingLevelChange` (and `getLeafEntry`).
 * Throwing `SessionNotLoadedError` (naming the read) is not a disagreement: the read needs the
 * rest. Any other throw is, and so is another answer, or a read that loaded the rest (`isBounded`
 * changed).
 */
export const compareReads = (
  manager: SessionManager.SessionManager,
  full: SessionManager.SessionManager,
  ids: ReadonlyArray<string>
): Compared => {
  const disagreements: Array<Disagreement> = []
  let refused = 0
  let answered = 0
  const bounded = manager.isBounded()
  const ask = (read: string, id: string | null | undefined, f: (m: SessionManager.SessionManager) => unknown) => {
    const want = canonical(f(full)) ?? "null"
    try {
      const got = canonical(f(manager)) ?? "null"
      answered++
      if (got !== want) disagreements.push({ read, id, got: JSON.parse(got), want: JSON.parse(want) })
    } catch (error) {
      if (error instanceof SessionNotLoadedError && error.method === read) refused++
      else disagreements.push({ read, id, got: String(error), want: JSON.parse(want) })
    }
    if (manager.isBounded() !== bounded) {
      disagreements.push({ read, id, got: "loaded the rest", want: "nothing loaded" })
    }
  }
  for (const id of [...ids, "no-such-id-0001"]) {
    ask("getEntry", id, (m) => m.getEntry(id))
    ask("getLabel", id, (m) => m.getLabel(id))
  }
  for (const id of [...ids, null, "no-such-id-0001"]) {
    ask("getBranch", id, (m) => m.getBranch(id).map((e) => e.id))
    ask("getChildren", id, (m) => m.getChildren(id).map((e) => e.id))
    ask("hasThinkingLevelChange", id, (m) => m.hasThinkingLevelChange(id))
    // the whole session answers an unknown leaf with its last entry's context: a bounded one throws
    ask("buildSessionContext", id, (m) => m.buildSessionContext(id))
  }
  if (manager.getLeafId() === full.getLeafId()) {
    ask("getLeafEntry", undefined, (m) => m.getLeafEntry())
    ask("getBranch", undefined, (m) => m.getBranch().map((e) => e.id))
    ask("hasThinkingLevelChange", undefined, (m) => m.hasThinkingLevelChange())
    ask("buildSessionContext", undefined, (m) => m.buildSessionContext())
  }
  return { disagreements, refused, answered }
}

/** A step of a {@link randomWalk} whose answers differed: a resume's from a full open's, or the writer's own. */
export interface Mismatch {
  readonly seed: number
  readonly step: number
  readonly of: "resume" | "writer" | "resume reads" | "writer reads"
  readonly got: unknown
  readonly want: unknown
}

/**
 * What a {@link randomWalk} saw: the steps a resume answered bounded, the synchronous reads of
 * bounded managers that threw `SessionNotLoadedError` and those that answered, and every step that differed.
 */
export interface Walk {
  readonly steps: number
  readonly bounded: number
  readonly refused: number
  readonly answered: number
  readonly mismatches: ReadonlyArray<Mismatch>
}

/**
 * Seeded random sessions in `location`: appends, thinking-level and model changes, compactions
 * (keeping an entry on the path, elsewhere, or nothing), branches on and off the path, labels,
 * names, branch summaries, leaf resets, by a resumed manager; appends by another manager (a full
 * open, now and then after a branch of its own); raw rows by another tool (`rawAppend`: no lock,
 * no index; most continue the leaf, some hang elsewhere); resumes anew. After every step a
 * bounded open must answer as a full open (`both`), and the writer, once refreshed, as a full open
 * at its own leaf; and the synchronous reads of both, bounded, as a full open's or by throwing
 * `SessionNotLoadedError` ({@link disagreements}).
 */
export const randomWalk = <E, R>(options: {
  readonly location: string
  readonly seeds: number
  readonly steps: number
  /** Appends one raw row (a JSON line, no newline) to the session `ref` (id `sessionId`) as another tool would. */
  readonly rawAppend: (ref: string, sessionId: string, row: string) => Effect.Effect<void, E, R>
}) =>
  Effect.gen(function*() {
    const { assistant, user } = Messages
    const mismatches: Array<Mismatch> = []
    let bounded = 0
    let steps = 0
    let refused = 0
    let answered = 0
    /** The reads of `manager` against `whole` (ids: every entry's), counted when `manager` is bounded. */
    const reads = (manager: SessionManager.SessionManager, whole: SessionManager.SessionManager) => {
      const compared = compareReads(manager, whole, whole.getEntries().map((e) => e.id))
      if (manager.isBounded()) {
        refused += compared.refused
        answered += compared.answered
      }
      return compared.disagreements
    }
    const full = (ref: string) => SessionManager.open(ref, undefined, undefined, { readOnly: true, cache: false })
    for (let seed = 1; seed <= options.seeds; seed++) {
      const random = prng(seed)
      const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!
      const created = yield* SessionManager.create("/work", options.location, { eagerFlush: true })
      const ref = SessionRef.format(created.getSessionRef()!)
      yield* created.appendMessage(user("hello"))
      yield* created.appendMessage(assistant("hi"))
      let sm = yield* SessionManager.resume(ref)
      let foreign = 0
      for (let step = 0; step < options.steps; step++) {
        const ids = (yield* full(ref)).getEntries().map((e) => e.id)
        const branchIds = (sm.getBoundedState() ?? sm.getState()).entries.map((e) => e.id)
        const r = random()
        if (r < 0.25) yield* sm.appendMessage(pick([user, assistant])(`m${step}`))
        else if (r < 0.3) yield* sm.appendThinkingLevelChange(pick(["low", "high", "off"]))
        else if (r < 0.35) yield* sm.appendModelChange("p", pick(["a", "b"]))
        else if (r < 0.42) {
          const kept = random() < 0.2 ? null : pick(random() < 0.7 ? branchIds : ids)
          yield* sm.appendCompaction(`summary ${step}`, kept, 100)
        } else if (r < 0.5) yield* sm.branch(pick(random() < 0.6 ? branchIds : ids))
        else if (r < 0.56) yield* sm.appendLabelChange(pick(ids), random() < 0.8 ? `l${step}` : undefined)
        else if (r < 0.6) yield* sm.appendSessionInfo(`name ${step}`)
        else if (r < 0.64) yield* sm.branchWithSummary(pick(branchIds), `bs ${step}`)
        else if (r < 0.66) yield* sm.resetLeaf()
        else if (r < 0.76) {
          const other = yield* SessionManager.open(ref, undefined, undefined, { cache: false })
          if (random() < 0.3) yield* other.branch(pick(ids))
          yield* other.appendMessage(user(`foreign ${step}`))
        } else if (r < 0.86) {
          const last = (yield* full(ref)).getLeafId()
          const row = JSON.stringify({
            type: "message",
            id: `f${String(foreign++).padStart(7, "0")}`,
            parentId: random() < 0.8 ? last : pick(ids),
            timestamp: "2026-01-01T00:00:00.000Z",
            message: user(`raw ${step}`)
          })
          yield* options.rawAppend(ref, created.getSessionId(), row)
        } else sm = yield* SessionManager.resume(ref)
        const resumed = yield* both(ref)
        steps++
        if (resumed.bounded) bounded++
        if (canonical(resumed.got) !== canonical(resumed.want)) {
          mismatches.push({ seed, step, of: "resume", got: resumed.got, want: resumed.want })
        }
        const whole = yield* full(ref)
        for (const d of reads(resumed.manager, whole)) {
          mismatches.push({ seed, step, of: "resume reads", got: d, want: d.want })
        }
        // the manager that wrote answers as a full open does at its own leaf (others' appends do not move it)
        yield* sm.refresh()
        const got = sm.buildSessionContext()
        const want = whole.buildSessionContext(sm.getLeafId())
        if (canonical(got) !== canonical(want)) mismatches.push({ seed, step, of: "writer", got, want })
        for (const d of reads(sm, whole)) mismatches.push({ seed, step, of: "writer reads", got: d, want: d.want })
      }
    }
    return { steps, bounded, refused, answered, mismatches } satisfies Walk
  })

/**
 * A session of 20 turns in `location`, compacted behind its leaf, one more message after, resumed
 * twice (the summary written by the first): `bounded` tells whether the second read only its path.
 */
export const compacted = (location: string) =>
  Effect.gen(function*() {
    const { assistant, user } = Messages
    const manager = yield* SessionManager.create("/work", location, { eagerFlush: true })
    for (let i = 0; i < 20; i++) {
      yield* manager.appendMessage(user(`u${i}`))
      yield* manager.appendMessage(assistant(`a${i}`))
    }
    yield* manager.appendCompaction("s", manager.getBranch()[30]!.id, 10)
    yield* manager.appendMessage(user("last"))
    const ref = SessionRef.format(manager.getSessionRef()!)
    yield* both(ref)
    return { manager, ref, bounded: (yield* both(ref)).bounded }
  })

/** What a state answers: leaf, append parent, name, labels (with their times), header, the context given. */
export const stateAnswers = (state: SessionState.SessionState, context: unknown) => ({
  leaf: state.leafId,
  appendParent: state.appendParentId,
  name: Tree.getSessionName(state),
  labels: [...state.labels].map(([t, l]) => [t, l.label, l.timestamp]).sort(),
  header: state.header,
  context: JSON.parse(JSON.stringify(context))
})

/** One bounded open made while another process appended: the rows it covered, its answers, whether it was bounded. */
export interface Seen {
  readonly rows: number
  readonly answers: ReturnType<typeof stateAnswers>
  readonly active: boolean
}

/**
 * Writable bounded opens of `ref` through the store's `loadActive` (each catches up and writes the
 * summary back), one after another while `running()` holds, at most `max`: what each answered.
 */
export const racing = (
  ref: SessionRef.SessionRef,
  running: () => boolean,
  max: number
): Effect.Effect<ReadonlyArray<Seen>, StoreFailure, TranscriptStore> =>
  Effect.gen(function*() {
    const store = yield* TranscriptStore
    const seen: Array<Seen> = []
    while (running() && seen.length < max) {
      const result = yield* store.loadActive!(ref, { cwd: "/" })
      if (result._tag === "Active") {
        const branch = Tree.getBranch(result.state, result.state.leafId!)
        const context = SessionContext.fromPath(result.state, [...result.before, ...branch])
        seen.push({ rows: result.end.line, answers: stateAnswers(result.state, context), active: true })
      } else {
        const state = result.loaded.state
        const context = SessionContext.buildSessionContext(state)
        seen.push({ rows: result.loaded.end.line, answers: stateAnswers(state, context), active: false })
      }
    }
    return seen
  })

/** Each of `seen` beside the answers of a full fold of the first rows of `texts` it covered (`texts`: every row, in order). */
export const racedAgainst = (seen: ReadonlyArray<Seen>, texts: ReadonlyArray<string>) =>
  seen.map(({ answers, rows }) => {
    const state = StoreRows.fold(StoreRows.parse(texts.slice(0, rows))).state
    return { rows, got: answers, want: stateAnswers(state, SessionContext.buildSessionContext(state)) }
  })
