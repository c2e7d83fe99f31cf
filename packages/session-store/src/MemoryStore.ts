/**
 * The in-memory row backend of `TranscriptStore`: sessions are lists of row texts in plain state
 * (no filesystem, real or fake), as an SQL table would hold them; a cursor is a generation
 * (bumped by every replace) and the number of rows seen; a hold is a per-session semaphore
 * (re-entrant on one fiber); a replace keeps the old rows as a backup. Rows keep their text byte
 * for byte (opaque, corrupt and blank rows included). It serves `memory:LOCATION#ID` references
 * (what `refFor` gives) and, keyed by their path, file references (so `SessionManager.open(path)`
 * works over it too); SQL references fail with `UnsupportedSessionRefError`.
 *
 * @since 0.1.0
 */
import { Line } from "@branchlog/session-core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { SessionFileConflictError } from "./SessionError.js"
import * as SessionRef from "./SessionRef.js"
import * as StoreRows from "./StoreRows.js"
import type { Appended, Changes, Cursor, Held, LoadReport, Position, TranscriptStoreShape } from "./TranscriptStore.js"
import { SessionNotFoundError, StaleCursorError, TranscriptStore } from "./TranscriptStore.js"
import { replacedWhileStreaming } from "./TranscriptStoreError.js"

/** One stored session. */
export interface StoredSession {
  readonly ref: SessionRef.SessionRef
  readonly location: string
  /** Bumped by every replace. */
  generation: number
  /** The rows' texts, in order (no `\n` inside). */
  rows: Array<string>
  /** When it was last written (`Clock` millis). */
  modifiedMs: number
}

/**
 * The whole state of a memory store: sessions by reference string, backups by name, and each
 * session's hold (shared by every store over this state, as a database's locks are).
 */
export interface State {
  readonly sessions: Map<string, StoredSession>
  readonly backups: Map<string, ReadonlyArray<string>>
  readonly holds: Map<string, Effect.Semaphore>
}

/** A fresh, empty state. */
export const makeState = (): State => ({ sessions: new Map(), backups: new Map(), holds: new Map() })

const dirnameOf = (path: string): string => {
  const slash = path.lastIndexOf("/")
  return slash <= 0 ? (slash === 0 ? "/" : "") : path.slice(0, slash)
}

/** The store over `state` (a fresh one by default). */
export const make = (state: State = makeState()): Effect.Effect<TranscriptStoreShape> =>
  Effect.sync(() => {
    const id = Symbol("MemoryStore")
    const semaphores = state.holds
    const holding = FiberRef.unsafeMake<ReadonlySet<string>>(new Set())
    let backupCounter = 0

    const keyOf = (ref: SessionRef.SessionRef): string => SessionRef.format(ref)
    const serve = (ref: SessionRef.SessionRef) =>
      ref._tag === "File" || ref._tag === "Memory"
        ? Effect.succeed(ref)
        : Effect.fail(new SessionRef.UnsupportedSessionRefError({ ref: SessionRef.format(ref), store: "memory" }))
    const cursorOf = (key: string, session: StoredSession) =>
      StoreRows.toCursor({ store: id, key, generation: session.generation, seq: session.rows.length })
    const loadedOf = (
      key: string,
      session: StoredSession,
      lines: ReadonlyArray<Line.ParsedLine>,
      extra: Partial<LoadReport> = {}
    ) => StoreRows.loaded(lines, cursorOf(key, session), extra)
    const backupOf = (key: string, rows: ReadonlyArray<string>, label: string) => {
      backupCounter += 1
      const name = `${key}.${label}-${backupCounter}`
      state.backups.set(name, [...rows])
      return name
    }

    const changesOf = (key: string, cursor: Cursor) =>
      Effect.sync((): Changes => {
        const session = state.sessions.get(key)
        return StoreRows.changes(
          session === undefined ? undefined : { texts: session.rows, generation: session.generation },
          StoreRows.fromCursor(cursor, id, key),
          () => cursorOf(key, session!)
        )
      })

    const write = (key: string, session: StoredSession, texts: ReadonlyArray<string>) =>
      Effect.map(Clock.currentTimeMillis, (now): Appended => {
        const positions: Array<Position> = []
        for (const text of texts) {
          positions.push({ line: session.rows.length + 1, offset: session.rows.length })
          session.rows.push(text)
        }
        session.modifiedMs = now
        state.sessions.set(key, session)
        return {
          cursor: cursorOf(key, session),
          positions,
          end: StoreRows.end(session.rows.length)
        }
      })

    const replaceRows = (
      key: string,
      ref: SessionRef.SessionRef,
      rows: ReadonlyArray<string>,
      backup: string | undefined
    ) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const old = state.sessions.get(key)
        const backupName = backup !== undefined && old !== undefined && old.rows.length > 0
          ? backupOf(key, old.rows, backup)
          : undefined
        const session: StoredSession = old ?? {
          ref,
          location: ref._tag === "Memory" ? ref.location : dirnameOf(ref._tag === "File" ? ref.path : ""),
          generation: 0,
          rows: [],
          modifiedMs: now
        }
        session.generation += 1
        session.rows = [...rows]
        session.modifiedMs = now
        state.sessions.set(key, session)
        return { backup: backupName, session }
      })

    const makeHeld = (ref: SessionRef.SessionRef, key: string): Held => ({
      ref,
      vouches: (cursor) => {
        const session = state.sessions.get(key)
        const mc = StoreRows.fromCursor(cursor, id, key)
        return session !== undefined && mc !== undefined && mc.generation === session.generation &&
          mc.seq === session.rows.length
      },
      changes: (cursor) => changesOf(key, cursor),
      create: (texts) =>
        Effect.suspend(() => {
          const existing = state.sessions.get(key)
          if (existing !== undefined && existing.rows.length > 0) {
            return Effect.fail(
              new SessionFileConflictError({
                path: key,
                size: existing.rows.length,
                unit: "rows"
              })
            )
          }
          return Effect.flatMap(Clock.currentTimeMillis, (now) =>
            write(
              key,
              existing ?? {
                ref,
                location: ref._tag === "Memory" ? ref.location : dirnameOf(ref._tag === "File" ? ref.path : ""),
                generation: 1,
                rows: [],
                modifiedMs: now
              },
              texts
            ))
        }),
      append: (cursor, texts) =>
        Effect.flatMap(changesOf(key, cursor), (change) => {
          const session = state.sessions.get(key)
          if (change._tag !== "Unchanged" || session === undefined) {
            return Effect.fail(new StaleCursorError({ ref: key, change: change._tag }))
          }
          return write(key, session, texts)
        }),
      replace: (rows, options) =>
        Effect.flatMap(replaceRows(key, ref, rows.map(Line.serialize), options.backup), ({ backup, session }) =>
          Effect.succeed({
            backup,
            loaded: session.rows.length === 0
              ? StoreRows.missing
              : loadedOf(key, session, StoreRows.parse(session.rows))
          }))
    })

    const exclusive = <A, E, R>(
      ref: SessionRef.SessionRef,
      use: (held: Held) => Effect.Effect<A, E, R>
    ) =>
      Effect.flatMap(serve(ref), (served) => {
        const key = keyOf(served)
        const held = makeHeld(served, key)
        return Effect.flatMap(FiberRef.get(holding), (keys) => {
          if (keys.has(key)) {
            return use(held)
          }
          let semaphore = semaphores.get(key)
          if (semaphore === undefined) {
            semaphore = Effect.unsafeMakeSemaphore(1)
            semaphores.set(key, semaphore)
          }
          return semaphore.withPermits(1)(Effect.locally(use(held), holding, new Set([...keys, key])))
        })
      })

    const load = (ref: SessionRef.SessionRef, options: Parameters<TranscriptStoreShape["load"]>[1]) =>
      Effect.flatMap(serve(ref), (served) =>
        Effect.gen(function*() {
          const key = keyOf(served)
          const session = state.sessions.get(key)
          if (session === undefined || session.rows.length === 0) {
            return StoreRows.missing
          }
          const lines = StoreRows.parse(session.rows)
          if (StoreRows.isCurrent(lines)) {
            return loadedOf(key, session, lines)
          }
          const recovered = yield* StoreRows.recover(lines, options.cwd)
          const extra = { migratedFrom: recovered.migratedFrom, recoveredCorruptHeader: recovered.recovered }
          if (options.readOnly === true) {
            return { ...loadedOf(key, session, recovered.lines, extra) }
          }
          return yield* exclusive(served, () =>
            Effect.map(
              replaceRows(key, served, recovered.lines.map(Line.serialize), recovered.recovered ? "corrupt" : "backup"),
              ({ backup, session: replaced }) =>
                loadedOf(key, replaced, StoreRows.parse(replaced.rows), {
                  ...extra,
                  corrupt: loadedOf(key, session, lines).report.corrupt,
                  rewritten: true,
                  backups: backup === undefined ? [] : [backup]
                })
            ))
        }))

    const summaries = (location: string | undefined) => {
      const out: Array<ReturnType<typeof summaryOf>> = []
      for (const [key, session] of state.sessions) {
        if (location !== undefined && session.location !== location) {
          continue
        }
        out.push(summaryOf(key, session))
      }
      return out.flatMap((o) =>
        Option.isSome(o) ? [o.value] : []
      )
    }
    const summaryOf = (key: string, session: StoredSession) =>
      StoreRows.summary(session.ref, key, session.rows, session.modifiedMs)

    return {
      name: "memory",
      resolve: serve,
      // the sessions of a cwd live in a location named by it
      defaultLocation: (cwd) => Effect.succeed(cwd),
      resolveLocation: (location) => location,
      locationOf: (ref) => ref._tag === "Memory" ? ref.location : ref._tag === "File" ? dirnameOf(ref.path) : "",
      refFor: (location, header) => SessionRef.memory(location, header.id),
      positionAfter: StoreRows.positionAfter,
      load,
      streamRows: (ref) =>
        Stream.unwrap(Effect.map(serve(ref), (served) => {
          const key = keyOf(served)
          return StoreRows.streamPages(
            (after, limit) => Effect.sync(() => StoreRows.pageOf(state.sessions.get(key), after, limit)),
            () => replacedWhileStreaming("memory", key)
          )
        })),
      changes: (ref, cursor) => Effect.flatMap(serve(ref), (served) => changesOf(keyOf(served), cursor)),
      exclusive: (ref, use) => exclusive(ref, use),
      list: (query) =>
        Effect.sync(() => {
          const found = summaries(query.location)
          query.onProgress?.(found.length, found.length)
          return found.sort((a, b) => b.modified.getTime() - a.modified.getTime())
        }),
      mostRecent: (location) =>
        Effect.sync(() => {
          let best: StoredSession | undefined
          for (const session of state.sessions.values()) {
            if (session.location !== location || !StoreRows.isSession(session.rows)) continue
            if (best === undefined || session.modifiedMs >= best.modifiedMs) best = session
          }
          return best === undefined ? Option.none() : Option.some(best.ref)
        }),
      remove: (ref) =>
        Effect.flatMap(serve(ref), (served) =>
          exclusive(served, () =>
            Effect.suspend(() => {
              const key = keyOf(served)
              if (!state.sessions.delete(key)) return Effect.fail(new SessionNotFoundError({ ref: key }))
              return Effect.void
            })))
    } satisfies TranscriptStoreShape
  })

/** The memory store as a layer (a fresh state per build, or the one given). */
export const layer = (state?: State): Layer.Layer<TranscriptStore> => Layer.effect(TranscriptStore, make(state))
