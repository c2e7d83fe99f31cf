/**
 * The write protocol. Every persisted write: take the transcript lock → compare the file with
 * the snapshot this manager last saw → fold foreign appends read from the old end (they do not
 * move this manager's leaf), or re-read the whole file after a foreign rewrite → build the rows
 * (ids unique against everything now known, timestamps from `Clock`) → one append of whole lines
 * → take the new snapshot → release → tell the `TranscriptObserver`, if one is provided.
 * Inside this manager's own `withWriteLock`, a write that follows its own last write under the
 * same lock skips the comparison, and the snapshot is taken once when the lock is let go; such a
 * write goes through one file descriptor held open (O_APPEND) until the lock is let go, as ONE
 * write with no read-back of the last byte (this manager's last write left it a `\n`).
 */
import { SessionState } from "@branchlog/session-core"
import type { Entry } from "@branchlog/session-core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as OversizedLine from "../../OversizedLine.js"
import { ReadOnlySessionError, SessionFileConflictError } from "../../SessionError.js"
import type { FileNotFoundError, LockTimeoutError, LockUnusableError, NotRegularFileError } from "../../StoreError.js"
import type { FileSystemError } from "../../StoreError.js"
import { TranscriptObserver } from "../../TranscriptObserver.js"
import type { TranscriptObserverShape } from "../../TranscriptObserver.js"
import type { Core, OwnRow } from "./core.js"
import { applyLine, textOf } from "./core.js"
import { applyOwn, contentOf, rebuild } from "./load.js"

/** Errors of a write. */
export type WriteError =
  | FileSystemError
  | FileNotFoundError
  | NotRegularFileError
  | LockTimeoutError
  | LockUnusableError
  | SessionFileConflictError
  | ReadOnlySessionError

/** Which manager wrote a file last in this process (by the file a path names: a link and its target are one). */
const lastWriter = new Map<string, symbol>()

/** Records this manager as the last writer of its file (`false`: forgets whoever it was). */
export const markLastWriter = (core: Core, wrote = true): void => {
  if (wrote) lastWriter.set(keyOf(core), core.token)
  else lastWriter.delete(keyOf(core))
}

/** The canonical key of the record's file (remembered per path). */
const keyOf = (core: Core): string => {
  const file = core.file!
  if (core.canonical?.file !== file) core.canonical = { file, key: core.services.files.canonical(file) }
  return core.canonical.key
}

/** `true` when this manager writes rows as they come (persisted, and an assistant exists or eager). */
export const flushes = (core: Core, assistant = false): boolean =>
  core.persist && core.file !== undefined && (core.options.eagerFlush === true || core.hasAssistant || assistant)

/** Closes the appender held inside `withWriteLock`, if any; the next write checks the file's last byte again. */
export const dropAppender = (core: Core): Effect.Effect<void> =>
  Effect.suspend(() => {
    const appender = core.appender
    core.appender = undefined
    core.tailTrusted = false
    return appender === undefined ? Effect.void : appender.handle.close
  })

const captureSnapshot = (core: Core) =>
  Effect.gen(function*() {
    const snapshot = yield* core.services.snapshots.capture(core.file!, { upTo: core.knownEnd })
    core.snapshot = Option.getOrUndefined(snapshot)
    core.snapshotStale = false
  })

/** Folds rows another writer appended from `from` on; restores this manager's leaf afterwards. */
const foldTail = (core: Core, from: number) =>
  Effect.gen(function*() {
    const saved = core.state.leafId
    const tail = yield* core.services.files.readFrom(core.file!, from, { firstLine: core.lineCount + 1 })
    for (const l of tail.lines) applyLine(core, OversizedLine.parse(l, core.file!, core.services.files))
    core.lineCount += tail.lines.length
    core.knownEnd = tail.endOffset
    if (core.state.leafId !== saved) SessionState.navigate(core.state, saved)
    yield* captureSnapshot(core)
  })

/** Writes the whole state to a file that vanished, then re-reads it. */
const restoreMissing = (core: Core) =>
  Effect.gen(function*() {
    const rows = SessionState.rows(core.state)
    yield* core.services.files.rewrite(core.file!, contentOf(rows))
    core.pending = []
    core.onDisk = true
    yield* rebuild(core)
  })

/** Brings the state up to date with the file, under the lock whose token is `token`. */
export const sync = (core: Core, token: string) =>
  Effect.gen(function*() {
    yield* dropAppender(core)
    const file = core.file!
    const { snapshots } = core.services
    if (!core.onDisk) {
      const existing = yield* snapshots.capture(file)
      if (Option.isSome(existing) && existing.value.size > 0) {
        return yield* new SessionFileConflictError({ path: file, size: existing.value.size })
      }
      return
    }
    if (
      core.lockDepth > 0 && core.syncedToken === token && lastWriter.get(keyOf(core)) === core.token &&
      core.snapshot !== undefined
    ) {
      return
    }
    if (core.snapshotStale) yield* captureSnapshot(core)
    if (core.snapshot === undefined) {
      yield* rebuild(core)
    } else {
      const change = yield* snapshots.classify(file, core.snapshot)
      switch (change._tag) {
        case "Unchanged":
          break
        case "Appended":
          if (core.pending.length > 0) yield* rebuild(core)
          else yield* foldTail(core, change.fromOffset)
          break
        case "Replaced":
          yield* rebuild(core)
          break
        case "Missing":
          yield* restoreMissing(core)
          break
      }
    }
    core.syncedToken = token
  })

const notifyTo = (observer: TranscriptObserverShape, core: Core, entries: ReadonlyArray<Entry.Entry>) => {
  if (entries.length === 0) return Effect.void
  const sessionFile = core.file!
  const sessionId = core.state.header?.id ?? ""
  return Effect.forEach(entries, (entry) =>
    observer.onAppend({ sessionFile, sessionId, entry }).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("TranscriptObserver.onAppend failed", cause))
    ), { discard: true })
}

const notify = (core: Core, entries: ReadonlyArray<Entry.Entry>) =>
  entries.length === 0 ? Effect.void : Effect.flatMap(
    Effect.serviceOption(TranscriptObserver),
    (observer) => Option.isNone(observer) ? Effect.void : notifyTo(observer.value, core, entries)
  )

/** Appends the pending rows and `rows` in one write; applies `rows` at their real offsets. */
const writeOut = (
  core: Core,
  rows: ReadonlyArray<OwnRow>
): Effect.Effect<void, FileSystemError | FileNotFoundError | NotRegularFileError> =>
  Effect.suspend(() => {
    const file = core.file!
    const own = rows.map(textOf)
    const texts = core.pending.length === 0 ? own : [...core.pending.map((p) => p.text), ...own]
    if (texts.length === 0) return Effect.void
    return Effect.flatMap(
      Effect.onError(
        core.services.files.append(file, texts, { durability: core.options.durability ?? "none" }),
        () => dropAppender(core)
      ),
      (result) => {
        let offset = result.offset
        let line = core.lineCount + 1
        for (const p of core.pending) {
          offset += Buffer.byteLength(p.text) + 1
          line += 1
        }
        for (let i = 0; i < rows.length; i++) {
          applyOwn(core, rows[i]!, line++, offset)
          offset += Buffer.byteLength(own[i]!) + 1
        }
        const flushed = core.pending.length === 0 ? rows : [...core.pending.map((p) => p.row), ...rows]
        core.pending = []
        core.onDisk = true
        core.lineCount = line - 1
        core.knownEnd = result.size
        lastWriter.set(keyOf(core), core.token)
        // the file now ends with our `\n` at `knownEnd`: later writes under the held lock need no read-back
        core.tailTrusted = core.lockDepth > 0
        const entries = flushed.flatMap((row) => row._tag === "Entry" ? [row.entry] : [])
        if (core.lockDepth > 0) {
          core.snapshotStale = true
          return notify(core, entries)
        }
        return Effect.zipRight(captureSnapshot(core), notify(core, entries))
      }
    )
  })

/** Opens the appender for the file (on the first held write that needs it inside `withWriteLock`). */
const openAppender = (core: Core, file: string): Effect.Effect<void, FileSystemError | FileNotFoundError> =>
  Effect.flatMap(
    Effect.zipRight(
      Effect.suspend(() => {
        const appender = core.appender
        core.appender = undefined
        return appender === undefined ? Effect.void : appender.handle.close
      }),
      core.services.files.openAppend(file, { durability: core.options.durability ?? "none" })
    ),
    (handle) =>
      Effect.sync(() => {
        core.appender = { path: file, handle }
      })
  )

/**
 * The held-lock fast path: this manager wrote last under the lock it still holds, so the file
 * ends with its `\n` at `knownEnd`. In one synchronous step: build the rows (time from the
 * fiber's `Clock`), encode them once, write them in ONE write through the held appender, apply
 * them at their offsets (so no interruption can fall between the write and its record). A failed
 * write leaves the state as it was and sends the next write through the checked path.
 */
const appendHeld = (
  core: Core,
  build: (now: number) => ReadonlyArray<OwnRow>,
  fiber: Pick<Fiber.RuntimeFiber<unknown, unknown>, "currentContext" | "currentDefaultServices">
): Effect.Effect<ReadonlyArray<OwnRow>, FileSystemError | FileNotFoundError> => {
  const file = core.file!
  const appender = core.appender
  if (appender === undefined || appender.path !== file) {
    return Effect.zipRight(
      openAppender(core, file),
      Effect.withFiberRuntime<ReadonlyArray<OwnRow>, FileSystemError | FileNotFoundError>((fiber) =>
        appendHeld(core, build, fiber)
      )
    )
  }
  const rows = build(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
  if (rows.length === 0) return Effect.succeed(rows)
  const texts = rows.map(textOf)
  const appended = appender.handle.unsafeAppend(texts.length === 1 ? texts[0]! + "\n" : texts.join("\n") + "\n")
  if (appended._tag === "Left") return Effect.zipRight(dropAppender(core), Effect.fail(appended.left))
  const written = appended.right
  let offset = core.knownEnd
  let line = core.lineCount + 1
  for (let i = 0; i < rows.length; i++) {
    applyOwn(core, rows[i]!, line++, offset)
    offset += rows.length === 1 ? written : Buffer.byteLength(texts[i]!) + 1
  }
  core.lineCount = line - 1
  core.knownEnd = offset
  core.snapshotStale = true
  const observer = Context.getOption(fiber.currentContext, TranscriptObserver)
  if (Option.isNone(observer)) return Effect.succeed(rows)
  const entries: Array<Entry.Entry> = []
  for (const row of rows) if (row._tag === "Entry") entries.push(row.entry)
  return Effect.as(notifyTo(observer.value, core, entries), rows)
}

/**
 * Runs `f` holding the transcript lock, with the lock's token. Inside this manager's own
 * `withWriteLock` the held lock is used as it is (no re-entrant acquire per write).
 */
export const locked = <A, E>(core: Core, f: (token: string) => Effect.Effect<A, E>) =>
  core.lockDepth > 0 && core.heldToken !== undefined
    ? f(core.heldToken)
    : Effect.scoped(
      Effect.flatMap(core.services.locks.acquire(core.file!, core.options.lock), (handle) => f(handle.token))
    )

/**
 * Builds rows (at `now`, after the file is synced) and commits them: written at once when the
 * session flushes, else kept pending (applied to the state, written with the first flush).
 */
export const commit = (
  core: Core,
  build: (now: number) => ReadonlyArray<OwnRow>,
  options: { readonly assistant?: boolean; readonly operation: string }
): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> =>
  Effect.withFiberRuntime<ReadonlyArray<OwnRow>, WriteError>((fiber) =>
    // the common case inside `withWriteLock` (e.g. one agent turn): straight to one held write
    !core.readOnly && core.tailTrusted && flushes(core, options.assistant) && heldByUs(core)
      ? appendHeld(core, build, fiber)
      : commitChecked(core, build, options)
  )

const commitChecked = (
  core: Core,
  build: (now: number) => ReadonlyArray<OwnRow>,
  options: { readonly assistant?: boolean; readonly operation: string }
): Effect.Effect<ReadonlyArray<OwnRow>, WriteError> =>
  Effect.gen(function*() {
    if (core.readOnly) {
      return yield* new ReadOnlySessionError({
        operation: options.operation,
        ...(core.file === undefined ? {} : { path: core.file })
      })
    }
    if (!flushes(core, options.assistant)) {
      const rows = build(yield* Clock.currentTimeMillis)
      let line = core.lineCount + core.pending.length + 1
      let offset = core.knownEnd
      for (const p of core.pending) offset += Buffer.byteLength(p.text) + 1
      for (const row of rows) {
        const text = textOf(row)
        applyOwn(core, row, line++, offset)
        offset += Buffer.byteLength(text) + 1
        if (core.persist && core.file !== undefined) core.pending.push({ row, text })
      }
      return rows
    }
    if (heldByUs(core)) {
      // this manager wrote last under the lock it still holds: nothing to re-check, one write
      return yield* Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const rows = build(now)
        return Effect.as(writeOut(core, rows), rows)
      })
    }
    return yield* locked(core, (token) =>
      Effect.gen(function*() {
        yield* sync(core, token)
        const rows = build(yield* Clock.currentTimeMillis)
        yield* writeOut(core, rows)
        return rows
      }))
  })

/** Inside this manager's `withWriteLock`, after its own last write under that same lock. */
const heldByUs = (core: Core): boolean =>
  core.lockDepth > 0 && core.heldToken !== undefined && core.syncedToken === core.heldToken && core.onDisk &&
  core.snapshot !== undefined && core.pending.length === 0 && lastWriter.get(keyOf(core)) === core.token

/** Writes whatever is pending now (the public `flush()`); nothing for in-memory or read-only sessions. */
export const flush = (core: Core): Effect.Effect<void, WriteError> =>
  !core.persist || core.file === undefined || core.readOnly || core.pending.length === 0
    ? Effect.void
    : locked(core, (token) => Effect.zipRight(sync(core, token), writeOut(core, [])))

/** Re-reads what other writers did to the file since this manager last saw it (under the lock). */
export const refresh = (core: Core): Effect.Effect<void, WriteError> =>
  !core.persist || core.file === undefined || !core.onDisk
    ? Effect.void
    : locked(core, (token) => sync(core, token))

/** Holds the transcript lock across `effect`: this manager's writes inside it skip re-checks of their own tail. */
export const withWriteLock = <A, E, R>(
  core: Core,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | WriteError, R> =>
  !core.persist || core.file === undefined || core.readOnly
    ? effect
    : Effect.acquireUseRelease(
      Scope.make(),
      (scope) =>
        Effect.flatMap(Scope.extend(core.services.locks.acquire(core.file!, core.options.lock), scope), (handle) =>
          Effect.acquireUseRelease(
            Effect.sync(() => {
              core.lockDepth += 1
              const outer = core.heldToken
              core.heldToken = handle.token
              return outer
            }),
            () =>
              effect,
            (outer) =>
              Effect.suspend(() => {
                core.lockDepth -= 1
                core.heldToken = outer
                if (core.lockDepth > 0) return Effect.void
                // the held file descriptor is closed before the lock is let go (also on failure / interruption)
                if (!core.snapshotStale) return dropAppender(core)
                return Effect.zipRight(
                  dropAppender(core),
                  captureSnapshot(core).pipe(Effect.catchAll(() =>
                    Effect.sync(() => {
                      core.snapshot = undefined
                      core.snapshotStale = false
                    })
                  ))
                )
              })
          )),
      (scope, exit) =>
        Scope.close(scope, exit)
    )
