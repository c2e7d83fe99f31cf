/**
 * Writes under an exclusive hold (the transcript lock): the first write of a hold goes through `TranscriptFile.append` (which checks the file's
 * last byte); later writes of a hold that wrote last go through one file descriptor held open
 * (O_APPEND) until the hold ends, as ONE write with no read-back. Snapshots of written cursors
 * are deferred to the end of the hold. What changed since a cursor is `changes.ts`.
 */
import { SessionFileConflictError } from "@branchlog/session-store/SessionError"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import type { FileNotFoundError } from "@branchlog/session-store/StoreError"
import type { FileSystemError } from "@branchlog/session-store/StoreError"
import type {
  Appended,
  Changes,
  Cursor,
  Held,
  Loaded,
  StoreFailure,
  WriteOptions
} from "@branchlog/session-store/TranscriptStore"
import { StaleCursorError } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as FileSnapshot from "../../FileSnapshot.js"
import * as OversizedLine from "../../OversizedLine.js"
import type * as TranscriptFile from "../../TranscriptFile.js"
import type * as TranscriptLock from "../../TranscriptLock.js"
import { changesOf, knownEnd, positionsOf, settle } from "./changes.js"
import { fromCursor, JsonlCursor, toCursor } from "./cursor.js"
import type { Env } from "./env.js"
import { nothing, reload } from "./load.js"

interface HoldState {
  /** The cursor of this hold's last write (the file ends with its `\n` there while nobody else wrote). */
  wrote: JsonlCursor | undefined
  /** The cursor this hold checked against the file, and what the store's last write was then. */
  verified: JsonlCursor | undefined
  verifiedLast: JsonlCursor | undefined
  appender: TranscriptFile.Appender | undefined
  /** An appender whose synchronous write failed, closed with the next drop (at the latest on release). */
  failed: TranscriptFile.Appender | undefined
}

/** Closes the held descriptors, if any (called when the effect is about to run: nothing to close is no step). */
const dropAppender = (hold: HoldState): Effect.Effect<void> => {
  const appender = hold.appender
  const failed = hold.failed
  if (appender === undefined && failed === undefined) return Effect.void
  hold.appender = undefined
  hold.failed = undefined
  const close = appender === undefined ? Effect.void : appender.close
  return failed === undefined ? close : Effect.zipRight(failed.close, close)
}

/** Closes the held descriptor and takes the deferred snapshot of the hold's last write (before the lock is let go). */
const release = (env: Env, path: string, hold: HoldState): Effect.Effect<void> => {
  const wrote = hold.wrote
  const settled = wrote === undefined || !wrote.stale
    ? Effect.void
    : settle(env, path, wrote).pipe(
      Effect.catchAll(() =>
        Effect.sync(() => {
          wrote.snapshot = undefined
          wrote.stale = false
        })
      )
    )
  // a descriptor whose write failed is closed here too, if nothing dropped it since
  return hold.appender === undefined && hold.failed === undefined
    ? settled
    : Effect.zipRight(dropAppender(hold), settled)
}

/** Runs `use` holding the transcript lock of `path`, with a JSONL `Held`. */
export const exclusive = <A, E, R>(
  env: Env,
  ref: SessionRef.FileRef,
  use: (held: Held) => Effect.Effect<A, E, R>,
  options: { readonly lock?: TranscriptLock.LockOptions } = {}
) =>
  Effect.withFiberRuntime<A, E | StoreFailure, R>((fiber) =>
    env.locksIn(fiber.currentContext).withLock(
      ref.path,
      Effect.suspend(() => {
        const hold: HoldState = {
          wrote: undefined,
          verified: undefined,
          verifiedLast: undefined,
          appender: undefined,
          failed: undefined
        }
        // the release runs uninterruptibly, whatever `use` ended with, before the lock is let go
        return Effect.ensuring(use(makeHeld(env, ref, hold)), Effect.suspend(() => release(env, ref.path, hold)))
      }),
      options.lock
    )
  )

const makeHeld = (env: Env, ref: SessionRef.FileRef, hold: HoldState): Held => {
  const path = ref.path
  const key = env.keyOf(path)
  const vouched = (cursor: JsonlCursor | undefined) =>
    cursor !== undefined && cursor === hold.wrote && env.lastWrite.get(key) === cursor
  const wrote = (cursor: JsonlCursor) => {
    hold.wrote = cursor
    hold.verified = cursor
    hold.verifiedLast = cursor
    env.lastWrite.set(key, cursor)
  }
  const durability = (options?: WriteOptions) => ({ durability: options?.durability ?? "none" })
  /**
   * Appends through `TranscriptFile.append` (which checks the last byte) after `from` (a cursor
   * this hold verified against the file, or `undefined` for a file found empty or missing). The
   * snapshot after the write comes from the append's own stat and the bytes written on top of
   * `from`'s tail when that stat proves the write landed right at `from`'s end of the same file;
   * else it is deferred (captured before the lock is let go).
   */
  const checkedAppend = (
    from: JsonlCursor | undefined,
    texts: ReadonlyArray<string>,
    options?: WriteOptions
  ) =>
    Effect.map(
      Effect.onError(
        env.files.append(path, texts, { durability: options?.durability ?? "none", known: knownEnd(from) }),
        () => dropAppender(hold)
      ),
      (result): Appended => {
        const start = from === undefined ? 0 : from.end.line
        const { end, positions } = positionsOf({ line: start, offset: result.offset }, texts)
        const derived = derivedSnapshot(from, texts, result)
        const next = derived === undefined
          ? new JsonlCursor(undefined, { line: end.line, offset: result.size }, true)
          : new JsonlCursor(derived.snapshot, { line: end.line, offset: result.size }, false, derived.tail)
        wrote(next)
        return { cursor: toCursor(next), positions, end: next.end }
      }
    )
  const derivedSnapshot = (
    from: JsonlCursor | undefined,
    texts: ReadonlyArray<string>,
    result: TranscriptFile.AppendResult
  ): FileSnapshot.Tailed | undefined => {
    if (result.stat === undefined) return undefined
    let before: FileSnapshot.Tailed | undefined
    if (from !== undefined) {
      const snapshot = from.snapshot
      const tail = from.tail
      if (from.stale || snapshot === undefined || tail === undefined || snapshot.size !== from.end.offset) {
        return undefined
      }
      before = { snapshot, tail }
    }
    const text = texts.length === 1 ? texts[0]! + "\n" : texts.join("\n") + "\n"
    const written = result.prefixedNewline ? "\n" + text : text
    return FileSnapshot.afterAppend(before?.snapshot.path ?? env.files.resolve(path), before, written, result.stat)
  }
  /** One synchronous write through the held descriptor, after the cursor this hold wrote last. */
  const writeHeld = (
    appender: TranscriptFile.Appender,
    cursor: JsonlCursor,
    texts: ReadonlyArray<string>
  ): Either.Either<Appended, FileSystemError> => {
    const appended = appender.unsafeAppend(texts.length === 1 ? texts[0]! + "\n" : texts.join("\n") + "\n")
    if (appended._tag === "Left") {
      hold.appender = undefined
      hold.failed = appender
      return Either.left(appended.left)
    }
    const { end, positions } = positionsOf(cursor.end, texts, texts.length === 1 ? appended.right : undefined)
    const next = new JsonlCursor(undefined, end, true)
    wrote(next)
    return Either.right({ cursor: toCursor(next), positions, end })
  }
  const heldAppend = (cursor: JsonlCursor, texts: ReadonlyArray<string>, options?: WriteOptions) =>
    Effect.suspend((): Effect.Effect<Appended, FileSystemError | FileNotFoundError> => {
      const appender = hold.appender
      if (appender === undefined) {
        return Effect.flatMap(env.files.openAppend(path, durability(options)), (handle) => {
          hold.appender = handle
          return heldAppend(cursor, texts, options)
        })
      }
      const result = writeHeld(appender, cursor, texts)
      return Either.isRight(result) ? Effect.succeed(result.right) : Effect.zipRight(dropAppender(hold), result)
    })
  return {
    ref,
    vouches: (cursor) => vouched(fromCursor(cursor)),
    unsafeAppendVouched: (cursor, texts) => {
      const jc = fromCursor(cursor)
      const appender = hold.appender
      if (jc === undefined || appender === undefined || texts.length === 0 || !vouched(jc)) return undefined
      return writeHeld(appender, jc, texts)
    },
    changes: (cursor: Cursor) =>
      Effect.suspend(() => {
        const jc = fromCursor(cursor)
        if (jc === undefined) return Effect.succeed<Changes>({ _tag: "Replaced" })
        if (vouched(jc)) return Effect.succeed<Changes>({ _tag: "Unchanged" })
        const checked = Effect.map(changesOf(env, path, jc), (change) => {
          hold.verified = change._tag === "Unchanged"
            ? jc
            : change._tag === "Appended"
            ? fromCursor(change.cursor)
            : undefined
          hold.verifiedLast = env.lastWrite.get(key)
          return change
        })
        return hold.appender === undefined && hold.failed === undefined
          ? checked
          : Effect.zipRight(dropAppender(hold), checked)
      }),
    create: (texts, options) =>
      Effect.gen(function*() {
        const existing = yield* env.snapshots.capture(path)
        if (Option.isSome(existing) && existing.value.size > 0) {
          return yield* new SessionFileConflictError({ path, size: existing.value.size })
        }
        yield* dropAppender(hold)
        if (options?.unterminated !== true || texts.length === 0) return yield* checkedAppend(undefined, texts, options)
        // an exact copy of a torn session: one atomic write of every row, the last without its newline
        yield* env.files.rewrite(path, texts.join("\n"))
        env.cache.remove(key)
        const loaded: Loaded = yield* reload(env, path, "")
        const cursor = loaded.cursor === undefined ? undefined : fromCursor(loaded.cursor)
        if (cursor !== undefined) wrote(cursor)
        const { positions } = positionsOf({ line: 0, offset: 0 }, texts)
        return { cursor: loaded.cursor!, positions, end: loaded.end }
      }),
    append: (cursor, texts, options) =>
      Effect.suspend((): Effect.Effect<Appended, StoreFailure | StaleCursorError> => {
        const jc = fromCursor(cursor)
        if (jc === undefined) {
          return Effect.fail(new StaleCursorError({ ref: SessionRef.format(ref), change: "not a JSONL cursor" }))
        }
        if (texts.length === 0) return Effect.succeed<Appended>({ cursor, positions: [], end: jc.end })
        if (vouched(jc)) return heldAppend(jc, texts, options)
        if (jc === hold.verified && env.lastWrite.get(key) === hold.verifiedLast) {
          return checkedAppend(jc, texts, options)
        }
        return Effect.flatMap(
          Effect.zipRight(dropAppender(hold), changesOf(env, path, jc)),
          (change): Effect.Effect<Appended, StoreFailure | StaleCursorError> =>
            change._tag === "Unchanged"
              ? checkedAppend(jc, texts, options)
              : Effect.fail(new StaleCursorError({ ref: SessionRef.format(ref), change: change._tag }))
        )
      }),
    replace: (rows, options) =>
      Effect.gen(function*() {
        // the file is replaced (new inode): a held appender would write to the old one
        yield* dropAppender(hold)
        let backup: string | undefined
        if (options.backup !== undefined) {
          const content = rows.length === 0 ? "" : OversizedLine.content(rows)
          backup = (yield* env.files.replace(path, content, { backup: options.backup })).backup
        } else yield* env.files.rewrite(path, OversizedLine.content(rows))
        env.cache.remove(key)
        hold.wrote = undefined
        hold.verified = undefined
        env.lastWrite.delete(key)
        if (rows.length === 0) return { backup, loaded: nothing() }
        const loaded: Loaded = yield* reload(env, path, options.cwd)
        const cursor = loaded.cursor === undefined ? undefined : fromCursor(loaded.cursor)
        if (cursor !== undefined) wrote(cursor)
        return { backup, loaded }
      })
  }
}

/**
 * The store's `unsafeAppendLocked` (a writer without a hold: `SessionManager` outside
 * `withWriteLock`): in one synchronous step, the transcript lock taken at once (gate free, lock
 * file created exclusively on the first try), the file opened and found exactly as `cursor`
 * verified it (dev, inode, size, mtime; its tail ending with `\n`), the rows built and written in
 * one write, the snapshot after it derived from the write's own stat, the descriptor closed and
 * the lock let go (its file removed only while it still holds our token). `undefined` whenever
 * any of that cannot be done at once: nothing was written and the caller takes the hold.
 */
export const appendLocked = (
  env: Env,
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  ref: SessionRef.SessionRef,
  cursor: Cursor,
  rows: () => ReadonlyArray<string>,
  options?: WriteOptions & { readonly lock?: TranscriptLock.LockOptions | undefined }
): Either.Either<Appended, StoreFailure> | undefined => {
  if (ref._tag !== "File" || options?.durability === "fsync") return undefined
  const jc = fromCursor(cursor)
  const known = knownEnd(jc)
  const openKnown = env.files.unsafeOpenKnown
  if (jc === undefined || known === undefined || openKnown === undefined) return undefined
  const tail = jc.tail!
  // the derived snapshot needs the whole hashed window of the file before (as `afterAppend` checks)
  if (known.tailLength !== tail.length || known.tailLength !== Math.min(FileSnapshot.DEFAULT_TAIL_BYTES, known.size)) {
    return undefined
  }
  const tryLock = env.locksIn(fiber.currentContext).unsafeTryLock
  if (tryLock === undefined) return undefined
  const path = ref.path
  const release = tryLock(fiber, path, options?.lock)
  if (release === undefined) return undefined
  try {
    const file = openKnown(path, known)
    if (file === undefined) return undefined
    try {
      const texts = rows()
      if (texts.length === 0) return Either.right({ cursor, positions: [], end: jc.end })
      const written = file.unsafeAppend(texts)
      if (Either.isLeft(written)) return Either.left(written.left)
      const result = written.right
      const { end, positions } = positionsOf({ line: jc.end.line, offset: result.offset }, texts)
      const text = texts.length === 1 ? texts[0]! + "\n" : texts.join("\n") + "\n"
      const derived = result.stat === undefined || result.offset !== known.size
        ? undefined
        : FileSnapshot.afterAppend(known.path, { snapshot: known, tail }, text, result.stat)
      // not derivable (someone wrote beside the lock): no snapshot, so the next check re-reads the file
      const next = derived === undefined
        ? new JsonlCursor(undefined, { line: end.line, offset: result.size }, false)
        : new JsonlCursor(derived.snapshot, { line: end.line, offset: result.size }, false, derived.tail)
      env.lastWrite.set(env.keyOf(path), next)
      return Either.right({ cursor: toCursor(next), positions, end: next.end })
    } finally {
      file.unsafeClose()
    }
  } finally {
    release()
  }
}
