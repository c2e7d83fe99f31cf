/**
 * Writing an imported session through session-store's public `SessionManager` API only (so it
 * works with any store): every entry is appended with the id the conversion chose (through the
 * manager's `IdSource`) and the source's time (through the `Clock`), after moving the leaf to its
 * parent (`branch` / `resetLeaf`); entries already in the destination (a re-import) are passed
 * over, so importing again writes nothing twice; the leaf ends where the source's was.
 */
import type { Entry } from "@branchlog/session-core"
import { IdSource, SessionManager } from "@branchlog/session-store"
import type { SessionStore } from "@branchlog/store-jsonl"
import { FileSnapshot } from "@branchlog/store-jsonl"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import type { ImportedSession } from "../ImportedSession.js"
import { DestinationError } from "../ImportError.js"

/** Where one session goes: a file, or a session folder (the file named as branchlog names it). */
export type Target = { readonly _tag: "File"; readonly path: string } | {
  readonly _tag: "Folder"
  readonly dir: string
}

/** What writing did. */
export interface Written {
  readonly file: string
  /** Entries appended now. */
  readonly written: number
  /** Entries that were there already. */
  readonly present: number
  readonly warnings: ReadonlyArray<string>
}

/** A clock that stands still at `millis` (entries take the source's times). */
const fixedClock = (millis: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => millis,
  currentTimeMillis: Effect.succeed(millis),
  unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
  sleep: (duration: Duration.Duration) => Effect.sleep(duration)
})

const at = (timestamp: string) => {
  const ms = Date.parse(timestamp)
  return Effect.withClock(fixedClock(Number.isFinite(ms) ? ms : 0))
}

/** An id source that hands out the id asked for next, else random ones (leaf controls). */
const steeredIds = () => {
  let next: string | undefined
  const source: IdSource.IdSourceShape = {
    uuid: () => {
      const id = next
      next = undefined
      return id !== undefined ? `${id}-0000-4000-8000-000000000000` : randomUUID()
    }
  }
  return { source, set: (id: string) => (next = id) }
}

const fail = (path: string) => (error: unknown) =>
  new DestinationError({ path, reason: String((error as { message?: string })?.message ?? error) })

const append = (m: SessionManager.SessionManager, entry: Entry.Entry): Effect.Effect<string, unknown> => {
  switch (entry.type) {
    case "message":
      return m.appendMessage(entry.message)
    case "custom":
      return m.appendCustomEntry(entry.customType, entry.data)
    case "custom_message":
      return m.appendCustomMessageEntry(entry.customType, entry.content, entry.display, entry.details)
    case "compaction":
      return m.appendCompaction(
        entry.summary,
        entry.firstKeptEntryId === entry.id || entry.firstKeptEntryId === null ? null : entry.firstKeptEntryId,
        entry.tokensBefore,
        entry.details,
        entry.fromHook,
        entry.usage
      )
    case "model_change":
      return m.appendModelChange(entry.provider, entry.modelId)
    case "thinking_level_change":
      return m.appendThinkingLevelChange(entry.thinkingLevel)
    case "session_info":
      return m.appendSessionInfo(entry.name ?? "")
    case "label":
      return m.appendLabelChange(entry.targetId, entry.label)
    case "branch_summary":
      return m.branchWithSummary(entry.parentId, entry.summary, entry.details, entry.fromHook, entry.usage)
    case "usage":
      return Effect.map(m.appendUsage(entry.kind, entry.provider, entry.model, entry.usage, entry.note), (e) => e.id)
    case "context_edit":
      return m.appendContextEdit(entry.targetId, entry.replacement)
  }
}

/** Opens (or starts) the destination of `session`; `parentFile` is the header's `parentSession`. */
const destination = (session: ImportedSession, target: Target, parentFile: string | undefined) =>
  Effect.gen(function*() {
    const snapshots = yield* FileSnapshot.FileSnapshot
    const exists = (path: string) => Effect.map(snapshots.capture(path), Option.isSome)
    if (target._tag === "File") {
      const fresh = !(yield* exists(target.path))
      const m = yield* SessionManager.open(target.path, undefined, session.cwd, { cache: false })
      if (fresh || m.getEntries().length === 0) yield* m.setIdentity({ sessionId: session.sessionId, cwd: session.cwd })
      else if (m.getSessionId() !== session.sessionId) {
        return yield* new DestinationError({
          path: target.path,
          reason: `holds session ${m.getSessionId()}, not ${session.sessionId}: import into another file or a folder`
        })
      }
      return m
    }
    const m = yield* SessionManager.create(session.cwd, target.dir)
    const file = yield* m.newSession({
      id: session.sessionId,
      ...(parentFile === undefined ? {} : { parentSession: parentFile })
    })
    if (file !== undefined && (yield* exists(file))) {
      return yield* SessionManager.open(file, target.dir, session.cwd, { cache: false })
    }
    return m
  })

/** Writes `session` to `target`; returns the file and what was written. */
export const write = (
  session: ImportedSession,
  target: Target,
  parentFile?: string
): Effect.Effect<Written, DestinationError, SessionStore.Services> => {
  const ids = steeredIds()
  const where = target._tag === "File" ? target.path : target.dir
  return Effect.gen(function*() {
    const m = yield* destination(session, target, parentFile).pipe(at(session.timestamp))
    const warnings: Array<string> = []
    let written = 0
    let present = 0
    const missing = session.entries.filter((entry) => m.getEntry(entry.id) === undefined)
    present = session.entries.length - missing.length
    const writeAll = Effect.gen(function*() {
      for (const entry of missing) {
        // move the leaf first (a leaf control takes an id of its own), even for a branch summary,
        // whose own move is then a no-op: nothing mints an id between \`set\` and the append
        if (entry.parentId === null) {
          if (m.getLeafId() !== null) yield* m.resetLeaf()
        } else if (m.getLeafId() !== entry.parentId) {
          if (m.getEntry(entry.parentId) === undefined) {
            warnings.push(`entry ${entry.id}: its parent ${entry.parentId} is not in the destination (not written)`)
            continue
          }
          yield* m.branch(entry.parentId)
        }
        ids.set(entry.id)
        const id = yield* append(m, entry).pipe(
          at(entry.timestamp),
          Effect.catchAll((error) =>
            Effect.as(
              Effect.sync(() =>
                warnings.push(
                  `entry ${entry.id} (${entry.type}) not written: ${
                    String((error as { message?: string })?.message ?? error)
                  }`
                )
              ),
              undefined
            )
          )
        )
        if (id === undefined) continue
        if (id !== entry.id) {
          warnings.push(`entry ${entry.id} was written as ${id} (the id was taken in the destination)`)
        }
        written++
      }
      if (session.leafId !== null && m.getLeafId() !== session.leafId && m.getEntry(session.leafId) !== undefined) {
        yield* m.branch(session.leafId)
      }
      yield* m.flush()
    })
    // one hold of the transcript lock for the whole session (appends then take the held-lock path)
    if (missing.length > 0) yield* m.withWriteLock(writeAll)
    return { file: m.getSessionFile() ?? where, written, present, warnings }
  }).pipe(
    Effect.provideService(IdSource.IdSource, ids.source),
    Effect.mapError(fail(where))
  )
}
