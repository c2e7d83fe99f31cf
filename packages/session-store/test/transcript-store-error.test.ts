/**
 * The storage interface's own errors (`TranscriptStoreError`): their messages name the store, the
 * location and what to do; the errors that lived in `TranscriptStore` and `SessionError` are the
 * same classes there; a batch stopped by a backend's failure encodes and decodes it; and the
 * memory store fails a stream whose session was replaced between pages with `BackendFailureError`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as MemoryStore from "../src/MemoryStore.js"
import * as SessionError from "../src/SessionError.js"
import * as SessionRef from "../src/SessionRef.js"
import * as StoreRows from "../src/StoreRows.js"
import * as TranscriptStore from "../src/TranscriptStore.js"
import * as TranscriptStoreError from "../src/TranscriptStoreError.js"

describe("TranscriptStoreError", () => {
  it("SchemaTooNewError names the store, the location, both versions and what to do", () => {
    const error = new TranscriptStoreError.SchemaTooNewError({
      store: "sqlite",
      location: "/data/team.db",
      found: 9,
      supported: 3
    })
    expect(error._tag).toBe("SchemaTooNewError")
    expect(error.message).toBe(
      "the sqlite store at /data/team.db has schema version 9, newer than this branchlog supports (3); nothing was changed: use a newer branchlog"
    )
  })

  it("BackendFailureError names the store, the operation, the location and the code, and keeps its cause", () => {
    const cause = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })
    const error = new TranscriptStoreError.BackendFailureError({
      store: "sqlite",
      location: "sqlite:/data/team.db#s1",
      operation: "append",
      code: "SQLITE_BUSY",
      detail: "database is locked",
      cause
    })
    expect(error.message).toBe(
      "the sqlite store failed to append sqlite:/data/team.db#s1 (SQLITE_BUSY): database is locked"
    )
    expect(error.cause).toBe(cause)
    const bare = new TranscriptStoreError.BackendFailureError({
      store: "postgres",
      location: "postgres://u:***@h/db",
      operation: "list",
      detail: "connection lost"
    })
    expect(bare.message).toBe("the postgres store failed to list postgres://u:***@h/db: connection lost")
  })

  it("the errors that lived in TranscriptStore and SessionError are the same classes", () => {
    expect(TranscriptStore.StaleCursorError).toBe(TranscriptStoreError.StaleCursorError)
    expect(TranscriptStore.SessionNotFoundError).toBe(TranscriptStoreError.SessionNotFoundError)
    expect(TranscriptStore.SearchUnsupportedError).toBe(TranscriptStoreError.SearchUnsupportedError)
    expect(SessionError.SessionFileConflictError).toBe(TranscriptStoreError.SessionFileConflictError)
  })

  it("an AppendBatchError stopped by a backend's failure or a too-new schema encodes and decodes it", () => {
    const codec = Schema.encodeSync(SessionError.AppendBatchError)
    const decode = Schema.decodeUnknownSync(SessionError.AppendBatchError)
    for (
      const cause of [
        new TranscriptStoreError.BackendFailureError({
          store: "postgres",
          location: "postgres://h/db#s1",
          operation: "append",
          code: "57P01",
          detail: "terminating connection"
        }),
        new TranscriptStoreError.SchemaTooNewError({ store: "sqlite", location: "/a.db", found: 9, supported: 3 })
      ]
    ) {
      const batch = new SessionError.AppendBatchError({ written: 1, pending: 0, total: 3, error: cause })
      const back = decode(codec(batch))
      expect(back.error).toBeInstanceOf(cause.constructor)
      expect(back.error.message).toBe(cause.message)
      expect(back.message).toBe(`${cause.message}; 1 of 3 entries written before it stopped`)
    }
  })

  it.effect("the memory store fails a stream whose session was replaced between pages with BackendFailureError", () =>
    Effect.gen(function*() {
      const state = MemoryStore.makeState()
      const ref = SessionRef.memory("loc", "s1")
      const key = SessionRef.format(ref)
      const rows = Array.from({ length: StoreRows.STREAM_PAGE + 5 }, (_, i) => JSON.stringify({ n: i }))
      state.sessions.set(key, { ref, location: "loc", generation: 1, rows, modifiedMs: 0 })
      const store = yield* MemoryStore.make(state)
      let seen = 0
      const error = yield* store.streamRows!(ref).pipe(
        Stream.tap(() =>
          Effect.sync(() => {
            // the first page is out: the session is replaced before the second is read
            if (seen++ === 0) state.sessions.get(key)!.generation += 1
          })
        ),
        Stream.runDrain,
        Effect.flip
      )
      expect(seen).toBe(StoreRows.STREAM_PAGE)
      expect(error).toBeInstanceOf(TranscriptStoreError.BackendFailureError)
      expect(error).toMatchObject({ store: "memory", location: key, operation: "stream rows" })
    }))
})
