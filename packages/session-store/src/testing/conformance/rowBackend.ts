/**
 * The conformance suite over `MemoryStore`, the in-memory ROW backend of `TranscriptStore` (no
 * filesystem, real or fake): a place is a location string, a reference is `memory:PLACE#ID`, a row
 * is one stored text, a backup is the rows a replace kept. Another "process" is a second store
 * over the same state (its own instance; the holds are the state's).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as FileSnapshot from "../../FileSnapshot.js"
import * as MemoryFileSystem from "../../MemoryFileSystem.js"
import * as MemoryStore from "../../MemoryStore.js"
import * as SessionManager from "../../SessionManager.js"
import * as SessionRef from "../../SessionRef.js"
import * as TranscriptFile from "../../TranscriptFile.js"
import * as TranscriptLock from "../../TranscriptLock.js"
import { TranscriptStore } from "../../TranscriptStore.js"
import type { Backend, Services } from "./Backend.js"

/**
 * The suite's `Services` include the file-level services (the file backends' adapters use them);
 * a row store needs none, so an empty in-memory volume stands behind them, unused.
 */
const unusedFiles = Layer.provide(
  Layer.mergeAll(TranscriptFile.layerMemory, FileSnapshot.layerMemory, TranscriptLock.layerMemory),
  MemoryFileSystem.layer()
)

const parseRef = (ref: string) =>
  Either.match(SessionRef.parse(ref), { onLeft: (e) => Effect.fail(e), onRight: (r) => Effect.succeed(r) })

/** The row backend (`MemoryStore`) over one shared state. */
export const rows = (): Backend => {
  const state = MemoryStore.makeState()
  const layerOver = (): Layer.Layer<Services> => Layer.merge(unusedFiles, MemoryStore.layer(state))
  const layer = layerOver()
  let places = 0
  const session = (ref: string) => state.sessions.get(ref)
  return {
    name: "rows",
    layer,
    subject: {
      place: Effect.sync(() => `/rows/place-${++places}`),
      create: (place, cwd, options) => SessionManager.create(cwd, place, options),
      open: (ref, options) => SessionManager.open(ref, undefined, undefined, options),
      refOf: (manager) => SessionRef.format(manager.getSessionRef()!),
      absent: (place, name) => SessionRef.format(SessionRef.memory(place, name)),
      forkFrom: (source, targetCwd, place, options) => SessionManager.forkFrom(source, targetCwd, place, options),
      continueRecent: (place, cwd, options) => SessionManager.continueRecent(cwd, place, options),
      list: (place) =>
        Effect.flatMap(
          TranscriptStore,
          (store) =>
            Effect.map(store.list({ location: place }), (found) =>
              found.map((info) => ({ ref: SessionRef.format(info.ref), info })))
        ),
      mostRecent: (place) =>
        Effect.flatMap(TranscriptStore, (store) => Effect.map(store.mostRecent(place), Option.map(SessionRef.format))),
      remove: (ref) => Effect.flatMap(Effect.zip(TranscriptStore, parseRef(ref)), ([store, r]) => store.remove(r)),
      rows: (ref) => Effect.sync(() => session(ref)?.rows.slice()),
      backups: (ref) =>
        Effect.sync(() =>
          [...state.backups].filter(([name]) => name.startsWith(`${ref}.`)).map(([, backup]) => [...backup])
        ),
      seed: (place, name, texts) =>
        Effect.sync(() => {
          const ref = SessionRef.memory(place, name)
          const key = SessionRef.format(ref)
          state.sessions.set(key, { ref, location: place, generation: 1, rows: [...texts], modifiedMs: Date.now() })
          return key
        }),
      foreignAppend: (ref, texts) =>
        Effect.sync(() => {
          const stored = session(ref)
          if (stored === undefined) throw new Error(`no such session: ${ref}`)
          stored.rows.push(...texts)
          stored.modifiedMs = Date.now()
        }),
      foreignReplace: (ref, texts) =>
        Effect.sync(() => {
          const stored = session(ref)
          if (stored === undefined) throw new Error(`no such session: ${ref}`)
          stored.generation += 1
          stored.rows = [...texts]
          stored.modifiedMs = Date.now()
        }),
      independent: (effect) => Effect.provide(effect, layerOver())
    }
  }
}
