/**
 * The write protocol. Every stored write: hold the session (`locking.ts`) → catch up with what
 * others wrote since this manager's cursor (`sync.ts`; foreign appends do not move this manager's
 * leaf) → build the rows (ids unique against everything now known, timestamps from `Clock`) → one
 * write of the pending rows and the new ones → let go → tell the `TranscriptObserver`
 * (`notify.ts`). Inside this manager's `withWriteLock`, a write that follows its own last write
 * (the hold vouches for the cursor) goes straight to the store, with no check.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { ReadOnlySessionError } from "../../SessionError.js"
import type { WriteError as SessionManagerWriteError } from "../../SessionManager.js"
import { TranscriptObserver } from "../../TranscriptObserver.js"
import type { Appended, Held } from "../../TranscriptStore.js"
import type { Core, OwnRow } from "./core.js"
import { applyOwn, pathField, stored, textOf } from "./core.js"
import { heldNow, locked, withWriteLock as holdSession } from "./locking.js"
import { entriesOf, notify, notifyTo } from "./notify.js"
import { sync } from "./sync.js"

/** Errors of a write. */
export type WriteError = SessionManagerWriteError

/** `true` when this manager writes rows as they come (stored, and an assistant exists or eager). */
export const flushes = (core: Core, assistant = false): boolean =>
  stored(core) && (core.options.eagerFlush === true || core.hasAssistant || assistant)

const writeOptions = (core: Core) => ({ durability: core.options.durability ?? "none" }) as const

/** Writes the pending rows and `rows` in one write through `held`; applies `rows` where they landed. */
const writeOut = (
  core: Core,
  held: Held,
  rows: ReadonlyArray<OwnRow>
): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> => Effect.suspend(() => writeNow(core, held, rows))

/** `writeOut`, from the state as it is now. */
const writeNow = (
  core: Core,
  held: Held,
  rows: ReadonlyArray<OwnRow>
): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> => {
  const own = rows.map(textOf)
  const pendingCount = core.pending.length
  const texts = pendingCount === 0 ? own : [...core.pending.map((p) => p.text), ...own]
  if (texts.length === 0) return Effect.succeed<ReadonlyArray<OwnRow>>([])
  const write: Effect.Effect<Appended, WriteError> = core.onDisk && core.cursor !== undefined
    ? held.append(core.cursor, texts, writeOptions(core))
    : held.create(texts, writeOptions(core))
  return Effect.uninterruptible(Effect.map(write, (result) => record(core, rows, result, texts)))
}

/** Applies `rows` where the write of the pending rows and `rows` put them; gives every row written. */
const record = (
  core: Core,
  rows: ReadonlyArray<OwnRow>,
  result: Appended,
  texts?: ReadonlyArray<string>
): ReadonlyArray<OwnRow> => {
  const pendingCount = core.pending.length
  // a manager keeping the session's index current notes where its rows landed (written when the hold ends)
  if (core.index !== undefined) {
    core.index.appended(texts ?? [...core.pending.map((p) => p.text), ...rows.map(textOf)], result.positions)
  }
  for (let i = 0; i < rows.length; i++) applyOwn(core, rows[i]!, result.positions[pendingCount + i]!)
  const flushed = pendingCount === 0 ? rows : [...core.pending.map((p) => p.row), ...rows]
  core.pending = []
  core.onDisk = true
  core.cursor = result.cursor
  core.end = result.end
  return flushed
}

/** Catches up and writes, under `held` (plain code: a writer that takes the lock per append runs this every time). */
const syncAndWrite = (core: Core, held: Held, build: (now: number) => ReadonlyArray<OwnRow>) =>
  Effect.flatMap(
    sync(core, held),
    () =>
      Effect.withFiberRuntime<{ rows: ReadonlyArray<OwnRow>; flushed: ReadonlyArray<OwnRow> }, WriteError>((fiber) => {
        const rows = build(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
        return Effect.map(writeNow(core, held, rows), (flushed) => ({ rows, flushed }))
      })
  )

/**
 * The held fast path: the hold wrote the cursor last. In one step: build the rows (time from the
 * fiber's `Clock`), encode them once, write them, apply them where they landed (no interruption
 * between the write and its record).
 */
const appendVouched = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  core: Core,
  held: Held,
  build: (now: number) => ReadonlyArray<OwnRow>
): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> => {
  const rows = build(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
  if (rows.length === 0) return Effect.succeed(rows)
  const observer = Context.getOption(fiber.currentContext, TranscriptObserver)
  const notified = () =>
    Option.isNone(observer) ? Effect.succeed(rows) : Effect.as(notifyTo(observer.value, core, entriesOf(rows)), rows)
  // the store's synchronous path (files: one write through the held descriptor), when it has one
  const texts = rows.map(textOf)
  const now = held.unsafeAppendVouched?.(core.cursor!, texts, writeOptions(core))
  if (now === undefined) return Effect.flatMap(writeOut(core, held, rows), notified)
  if (Either.isLeft(now)) return Effect.fail(now.left)
  record(core, rows, now.right, texts)
  return notified()
}

/**
 * Builds rows (at `now`, after catching up) and commits them: written at once when the session
 * flushes, else kept pending (applied to the state, written with the first flush).
 */
export const commit = (
  core: Core,
  build: (now: number) => ReadonlyArray<OwnRow>,
  options: { readonly assistant?: boolean; readonly operation: string }
): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> =>
  Effect.withFiberRuntime((fiber): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> => {
    if (core.readOnly) {
      return Effect.fail(new ReadOnlySessionError({ operation: options.operation, ...pathField(core) }))
    }
    if (!flushes(core, options.assistant)) {
      return Effect.map(Clock.currentTimeMillis, (now) => keepPending(core, build(now)))
    }
    const held = heldNow(core)
    if (held !== undefined) {
      // the common case inside `withWriteLock` (e.g. one agent turn): straight to one write
      if (core.onDisk && core.pending.length === 0 && core.cursor !== undefined && held.vouches(core.cursor)) {
        return appendVouched(fiber, core, held, build)
      }
      return Effect.flatMap(
        syncAndWrite(core, held, build),
        ({ flushed, rows }) => Effect.as(notify(core, entriesOf(flushed)), rows)
      )
    }
    if (core.onDisk && core.pending.length === 0 && core.cursor !== undefined) {
      const now = appendLocked(fiber, core, build)
      if (now !== undefined) return now
    }
    return Effect.flatMap(
      locked(core, (h) => syncAndWrite(core, h, build)),
      ({ flushed, rows }) => Effect.as(notify(core, entriesOf(flushed)), rows)
    )
  })

/**
 * The unheld fast path: the store's synchronous lock + check + write + release, when it has one
 * and the session is exactly as this manager's cursor saw it (nothing to catch up with: the rows
 * are built, at the fiber's `Clock` time, only after that check); `undefined`: take the hold.
 */
const appendLocked = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  core: Core,
  build: (now: number) => ReadonlyArray<OwnRow>
): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> | undefined => {
  const store = core.services.store
  if (store.unsafeAppendLocked === undefined || core.options.durability === "fsync") return undefined
  let rows: ReadonlyArray<OwnRow> = []
  let texts: ReadonlyArray<string> = []
  const now = store.unsafeAppendLocked(fiber, core.ref!, core.cursor!, () => {
    rows = build(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
    texts = rows.map(textOf)
    return texts
  }, { durability: "none", lock: core.options.lock })
  if (now === undefined) return undefined
  if (Either.isLeft(now)) return Effect.fail(now.left)
  record(core, rows, now.right, texts)
  const notified = rows.length === 0 ? Effect.succeed(rows) : Effect.as(notify(core, entriesOf(rows)), rows)
  // a manager keeping the session's index current writes its record right after the one step (the
  // record pins the bytes it describes: from and to watermarks, the same inode, so no lock is needed)
  return core.index === undefined ? notified : Effect.zipRight(core.index.write(core.cursor), notified)
}

/** Applies rows to the state and keeps them pending (positions continue after the pending ones). */
const keepPending = (core: Core, rows: ReadonlyArray<OwnRow>): ReadonlyArray<OwnRow> => {
  const store = core.services.store
  let position = core.end
  for (const p of core.pending) position = store.positionAfter(position, p.text, core.ref)
  for (const row of rows) {
    const text = textOf(row)
    const next = store.positionAfter(position, text, core.ref)
    applyOwn(core, row, { line: next.line, offset: position.offset })
    position = next
    if (stored(core)) core.pending.push({ row, text })
  }
  return rows
}

/** Writes whatever is pending now (the public `flush()`); nothing for in-memory or read-only sessions. */
export const flush = (core: Core): Effect.Effect<void, WriteError> =>
  !stored(core) || core.readOnly || core.pending.length === 0
    ? Effect.void
    : Effect.flatMap(
      locked(core, (held) => Effect.zipRight(sync(core, held), writeOut(core, held, []))),
      (flushed) => notify(core, entriesOf(flushed))
    )

/** Catches up with what other writers did since this manager last looked (under the hold). */
export const refresh = (core: Core): Effect.Effect<void, WriteError> =>
  !stored(core) || !core.onDisk ? Effect.void : locked(core, (held) => sync(core, held))

/** Holds the session across `effect`. */
export const withWriteLock = <A, E, R>(
  core: Core,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | WriteError, R> => holdSession(core, effect)
