/**
 * A TOY row backend of `TranscriptStore`, written as a user outside the package would: only the
 * public exports of `@branchlog/session-store` (no `src/internal`). Every session is a list of row
 * texts in one immutable value inside an Effect `Ref` (what a table would hold); a cursor is a
 * generation and a row count (`StoreRows.RowCursor`); a hold is a semaphore per session (kept in
 * a second `Ref`, shared by every store over one `ToyDb`, as a database's locks are), re-entrant
 * on one fiber; a replace keeps the old rows as a backup. It serves `memory:LOCATION#ID`
 * references only. `toyBackend()` adapts it to the conformance suite.
 */
import { Line } from "@branchlog/session-core"
import {
  SessionError,
  SessionManager,
  SessionRef,
  StoreRows,
  TranscriptStore,
  TranscriptStoreError
} from "@branchlog/session-store"
import type { Conformance } from "@branchlog/session-store/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"

/** One stored session (immutable: every write puts a new value in the `Ref`). */
export interface ToySession {
  readonly ref: SessionRef.MemoryRef
  readonly generation: number
  readonly rows: ReadonlyArray<string>
  readonly modifiedMs: number
}

/** Everything the toy database holds. */
export interface ToyData {
  readonly sessions: ReadonlyMap<string, ToySession>
  /** The backups of each session (by session key), oldest first. */
  readonly backups: ReadonlyMap<string, ReadonlyArray<ReadonlyArray<string>>>
}

/** The toy database: the data and the holds, each in a `Ref`. */
export interface ToyDb {
  readonly data: Ref.Ref<ToyData>
  readonly holds: Ref.Ref<ReadonlyMap<string, Effect.Semaphore>>
}

/** A fresh, empty toy database. */
export const makeDb: Effect.Effect<ToyDb> = Effect.zipWith(
  Ref.make<ToyData>({ sessions: new Map(), backups: new Map() }),
  Ref.make<ReadonlyMap<string, Effect.Semaphore>>(new Map()),
  (data, holds) => ({ data, holds })
)

const withSession = (data: ToyData, key: string, session: ToySession): ToyData => ({
  ...data,
  sessions: new Map(data.sessions).set(key, session)
})

/** A toy store over `db` (each call: a new instance, as another process's connection). */
export const make = (db: ToyDb): Effect.Effect<TranscriptStore.TranscriptStoreShape> =>
  Effect.sync(() => {
    const id = Symbol("ToyStore")
    const holding = FiberRef.unsafeMake<ReadonlySet<string>>(new Set())
    const serve = (ref: SessionRef.SessionRef) =>
      ref._tag === "Memory"
        ? Effect.succeed(ref)
        : Effect.fail(new SessionRef.UnsupportedSessionRefError({ ref: SessionRef.format(ref), store: "toy" }))
    const cursorOf = (key: string, session: ToySession) =>
      StoreRows.toCursor({ store: id, key, generation: session.generation, seq: session.rows.length })
    const get = (key: string) => Effect.map(Ref.get(db.data), (data) => data.sessions.get(key))
    const loadedOf = (key: string, session: ToySession, lines: ReadonlyArray<Line.ParsedLine>, extra = {}) =>
      StoreRows.loaded(lines, cursorOf(key, session), extra)

    const changesOf = (key: string, cursor: TranscriptStore.Cursor) =>
      Effect.map(get(key), (session) =>
        StoreRows.changes(
          session === undefined ? undefined : { texts: session.rows, generation: session.generation },
          StoreRows.fromCursor(cursor, id, key),
          () => cursorOf(key, session!)
        ))

    /** Appends texts to the session (created at generation 1 if absent), in one update of the `Ref`. */
    const write = (ref: SessionRef.MemoryRef, key: string, texts: ReadonlyArray<string>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(db.data, (data): [TranscriptStore.Appended, ToyData] => {
          const old = data.sessions.get(key) ?? { ref, generation: 1, rows: [], modifiedMs: now }
          const positions = texts.map((_, i) => ({ line: old.rows.length + i + 1, offset: old.rows.length + i }))
          const session: ToySession = { ...old, rows: [...old.rows, ...texts], modifiedMs: now }
          return [
            { cursor: cursorOf(key, session), positions, end: StoreRows.end(session.rows.length) },
            withSession(data, key, session)
          ]
        }))

    /** Replaces every row (a new generation), keeping the old rows as a backup when `label` is given. */
    const replaceRows = (ref: SessionRef.MemoryRef, key: string, texts: ReadonlyArray<string>, label?: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(db.data, (data): [{ backup: string | undefined; session: ToySession }, ToyData] => {
          const old = data.sessions.get(key)
          const session: ToySession = {
            ref,
            generation: (old?.generation ?? 0) + 1,
            rows: [...texts],
            modifiedMs: now
          }
          let next = withSession(data, key, session)
          let backup: string | undefined
          if (label !== undefined && old !== undefined && old.rows.length > 0) {
            const kept = data.backups.get(key) ?? []
            backup = `${key}.${label}-${kept.length + 1}`
            next = { ...next, backups: new Map(next.backups).set(key, [...kept, old.rows]) }
          }
          return [{ backup, session }, next]
        }))

    const makeHeld = (ref: SessionRef.MemoryRef, key: string): TranscriptStore.Held => ({
      ref,
      vouches: () =>
        false,
      changes: (cursor) =>
        changesOf(key, cursor),
      create: (texts) =>
        Effect.flatMap(get(key), (existing) =>
          existing !== undefined && existing.rows.length > 0
            ? Effect.fail(
              new SessionError.SessionFileConflictError({
                path: key,
                size: existing.rows.reduce((n, text) =>
                  n + text.length + 1, 0)
              })
            )
            : write(ref, key, texts)),
      append: (cursor, texts) =>
        Effect.flatMap(changesOf(key, cursor), (change) =>
          change._tag === "Unchanged"
            ? write(ref, key, texts)
            : Effect.fail(new TranscriptStore.StaleCursorError({ ref: key, change: change._tag }))),
      replace: (lines, options) =>
        Effect.map(replaceRows(ref, key, lines.map(Line.serialize), options.backup), ({ backup, session }) => ({
          backup,
          loaded: session.rows.length === 0 ? StoreRows.missing : loadedOf(key, session, StoreRows.parse(session.rows))
        }))
    })

    const semaphoreOf = (key: string) =>
      Effect.flatMap(Effect.makeSemaphore(1), (fresh) =>
        Ref.modify(db.holds, (holds): [Effect.Semaphore, ReadonlyMap<string, Effect.Semaphore>] => {
          const found = holds.get(key)
          return found !== undefined ? [found, holds] : [fresh, new Map(holds).set(key, fresh)]
        }))

    const exclusive = <A, E, R>(
      ref: SessionRef.SessionRef,
      use: (held: TranscriptStore.Held) => Effect.Effect<A, E, R>
    ) =>
      Effect.flatMap(serve(ref), (served) => {
        const key = SessionRef.format(served)
        const held = makeHeld(served, key)
        return Effect.flatMap(FiberRef.get(holding), (keys) =>
          keys.has(key)
            ? use(held)
            : Effect.flatMap(
              semaphoreOf(key),
              (semaphore) =>
                semaphore.withPermits(1)(Effect.locally(use(held), holding, new Set([...keys, key])))
            ))
      })

    const load = (ref: SessionRef.SessionRef, options: TranscriptStore.LoadOptions) =>
      Effect.gen(function*() {
        const served = yield* serve(ref)
        const key = SessionRef.format(served)
        const session = yield* get(key)
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
          return loadedOf(key, session, recovered.lines, extra)
        }
        return yield* exclusive(served, () =>
          Effect.map(
            replaceRows(served, key, recovered.lines.map(Line.serialize), recovered.recovered ? "corrupt" : "backup"),
            ({ backup, session: replaced }) =>
              loadedOf(key, replaced, StoreRows.parse(replaced.rows), {
                ...extra,
                corrupt: loadedOf(key, session, lines).report.corrupt,
                rewritten: true,
                backups: backup === undefined ? [] : [backup]
              })
          ))
      })

    const store: TranscriptStore.TranscriptStoreShape = {
      name: "toy",
      resolve: serve,
      resolveLocation: (location) =>
        location,
      locationOf: (ref) => (ref._tag === "Memory" ? ref.location : ""),
      refFor: (location, header) =>
        SessionRef.memory(location, header.id),
      positionAfter: StoreRows.positionAfter,
      load,
      streamRows: (ref) =>
        Stream.unwrap(Effect.map(serve(ref), (served) => {
          const key = SessionRef.format(served)
          return StoreRows.streamPages(
            (after, limit) =>
              Effect.map(Ref.get(db.data), (data) =>
                StoreRows.pageOf(data.sessions.get(key), after, limit)),
            () =>
              TranscriptStoreError.replacedWhileStreaming("toy", key)
          )
        })),
      changes: (ref, cursor) => Effect.flatMap(serve(ref), (served) => changesOf(SessionRef.format(served), cursor)),
      exclusive,
      list: (query) =>
        Effect.map(Ref.get(db.data), (data) => {
          const found: Array<TranscriptStore.SessionSummary> = []
          for (const [key, session] of data.sessions) {
            if (query.location !== undefined && session.ref.location !== query.location) continue
            const summary = StoreRows.summary(session.ref, key, session.rows, session.modifiedMs)
            if (Option.isSome(summary)) found.push(summary.value)
          }
          query.onProgress?.(found.length, found.length)
          return found.sort((a, b) => b.modified.getTime() - a.modified.getTime())
        }),
      mostRecent: (location) =>
        Effect.map(Ref.get(db.data), (data) => {
          let best: ToySession | undefined
          for (const session of data.sessions.values()) {
            if (session.ref.location !== location || !StoreRows.isSession(session.rows)) continue
            if (best === undefined || session.modifiedMs >= best.modifiedMs) best = session
          }
          return Option.map(Option.fromNullable(best), (s): SessionRef.SessionRef => s.ref)
        }),
      remove: (ref) =>
        exclusive(ref, (held) => {
          const key = SessionRef.format(held.ref)
          return Effect.flatMap(
            Ref.modify(db.data, (data): [boolean, ToyData] => {
              if (!data.sessions.has(key)) return [false, data]
              const sessions = new Map(data.sessions)
              sessions.delete(key)
              return [true, { ...data, sessions }]
            }),
            (removed) => (removed ? Effect.void : Effect.fail(new TranscriptStore.SessionNotFoundError({ ref: key })))
          )
        })
    }
    return store
  })

/** The toy store as a layer over `db`. */
export const layer = (db: ToyDb): Layer.Layer<TranscriptStore.TranscriptStore> =>
  Layer.effect(TranscriptStore.TranscriptStore, make(db))

const parseRef = (ref: string) =>
  Either.match(SessionRef.parse(ref), { onLeft: (e) => Effect.fail(e), onRight: (r) => Effect.succeed(r) })

/** The toy store as a conformance backend (one database; `independent` is a second store over it). */
export const toyBackend = (): Conformance.Backend => {
  const db = Effect.runSync(makeDb)
  let places = 0
  const update = (ref: string, f: (session: ToySession) => ToySession) =>
    Ref.update(db.data, (data) => {
      const session = data.sessions.get(ref)
      if (session === undefined) throw new Error(`no such session: ${ref}`)
      return withSession(data, ref, f(session))
    })
  return {
    name: "toy",
    layer: layer(db),
    subject: {
      place: Effect.sync(() => `/toy/place-${++places}`),
      create: (place, cwd, options) => SessionManager.create(cwd, place, options),
      open: (ref, options) => SessionManager.open(ref, undefined, undefined, options),
      refOf: (manager) => SessionRef.format(manager.getSessionRef()!),
      absent: (place, name) => SessionRef.format(SessionRef.memory(place, name)),
      forkFrom: (source, targetCwd, place, options) => SessionManager.forkFrom(source, targetCwd, place, options),
      continueRecent: (place, cwd, options) => SessionManager.continueRecent(cwd, place, options),
      list: (place) =>
        Effect.flatMap(TranscriptStore.TranscriptStore, (store) =>
          Effect.map(
            store.list({ location: place }),
            (found) => found.map((info) => ({ ref: SessionRef.format(info.ref), info }))
          )),
      mostRecent: (place) =>
        Effect.flatMap(
          TranscriptStore.TranscriptStore,
          (store) => Effect.map(store.mostRecent(place), Option.map(SessionRef.format))
        ),
      remove: (ref) =>
        Effect.flatMap(Effect.zip(TranscriptStore.TranscriptStore, parseRef(ref)), ([store, r]) => store.remove(r)),
      rows: (ref) => Effect.map(Ref.get(db.data), (data) => data.sessions.get(ref)?.rows.slice()),
      backups: (ref) => Effect.map(Ref.get(db.data), (data) => (data.backups.get(ref) ?? []).map((rows) => [...rows])),
      seed: (place, name, texts) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const ref = SessionRef.memory(place, name)
          const key = SessionRef.format(ref)
          return Effect.as(
            Ref.update(db.data, (data) =>
              withSession(data, key, { ref, generation: 1, rows: [...texts], modifiedMs: now })),
            key
          )
        }),
      foreignAppend: (ref, texts) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => update(ref, (s) => ({ ...s, rows: [...s.rows, ...texts], modifiedMs: now }))
        ),
      foreignReplace: (ref, texts) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => update(ref, (s) => ({ ...s, generation: s.generation + 1, rows: [...texts], modifiedMs: now }))
        ),
      independent: (effect) => Effect.provide(effect, layer(db))
    }
  }
}
