/**
 * What the factories of `SessionManager` share, and the two of them with a body of their own:
 * the services from the context, the session folder, `opening` (the reference resolved, a manager
 * made and filled by an open or a bounded open), and the fork (a new session holding every row of
 * another, written at once, then opened).
 */
import { Line, SessionState } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import * as IdSource from "../../IdSource.js"
import { InvalidSessionFileError } from "../../SessionError.js"
import type {
  OpenError,
  OpenOptions,
  Options,
  SessionManager,
  StoreRequirement,
  WriteError
} from "../../SessionManager.js"
import * as SessionRef from "../../SessionRef.js"
import type { StoreFailure, TranscriptStoreShape } from "../../TranscriptStore.js"
import { TranscriptStore } from "../../TranscriptStore.js"
import type { Core, Services } from "./core.js"
import { makeCore } from "./core.js"
import { make } from "./instance.js"
import { newHeader, openInto } from "./load.js"

/** The services a manager reaches its session through, from the context. */
export const servicesOf: Effect.Effect<Services, never, StoreRequirement> = Effect.gen(function*() {
  return {
    store: yield* TranscriptStore,
    ids: yield* IdSource.current
  } satisfies Services
})

/** The session location: `dir`, or by default the store's for `cwd` (files: the folder of `cwd`, spec §6). */
export const resolveDir = (
  store: TranscriptStoreShape,
  dir: string | undefined,
  cwd: string
): Effect.Effect<string, StoreFailure> => dir === undefined ? store.defaultLocation(cwd) : Effect.succeed(dir)

/** What `open` and `resume` share: the reference resolved, the manager made, `fill` reading the session into it. */
export const opening = <E>(
  session: string | SessionRef.SessionRef,
  sessionDir: string | undefined,
  cwdOverride: string | undefined,
  options: Options & { readonly readOnly?: boolean },
  fill: (core: Core, ref: SessionRef.SessionRef) => Effect.Effect<void, E>
): Effect.Effect<SessionManager, OpenError | E, StoreRequirement> =>
  Effect.gen(function*() {
    const services = yield* servicesOf
    const ref = yield* services.store.resolve(yield* SessionRef.from(session))
    const core = makeCore(services, options, {
      cwd: cwdOverride ?? process.cwd(),
      sessionDir: sessionDir === undefined
        ? services.store.locationOf(ref)
        : services.store.resolveLocation(sessionDir),
      ref,
      persist: true,
      readOnly: options.readOnly ?? false
    })
    yield* fill(core, ref)
    if (cwdOverride === undefined && typeof core.state.header?.cwd === "string") core.cwd = core.state.header.cwd
    return make(core)
  })

/** `SessionManager.open`: a full read of the session into a new manager. */
export const open = (
  session: string | SessionRef.SessionRef,
  sessionDir: string | undefined,
  cwdOverride: string | undefined,
  options: OpenOptions
): Effect.Effect<SessionManager, OpenError, StoreRequirement> =>
  opening(
    session,
    sessionDir,
    cwdOverride,
    options,
    (core, ref) => openInto(core, ref, { readOnly: options.readOnly ?? false, useCache: options.cache ?? true })
  )

/** `SessionManager.forkFrom`: every row of `source` under a fresh header, written at once, then opened. */
export const fork = (
  source: string | SessionRef.SessionRef,
  targetCwd: string | undefined,
  sessionDir: string | undefined,
  options: Options
): Effect.Effect<SessionManager, OpenError | InvalidSessionFileError | WriteError, StoreRequirement> =>
  Effect.gen(function*() {
    const services = yield* servicesOf
    const sourceName = typeof source === "string" ? source : SessionRef.format(source)
    const sourceManager = yield* open(source, undefined, undefined, { readOnly: true, cache: false })
    if (sourceManager.pendingCount() > 0 || sourceManager.wasRecoveredFromCorruptHeader()) {
      return yield* new InvalidSessionFileError({
        path: sourceName,
        reason: "Cannot fork: source session file is empty or invalid"
      })
    }
    const cwd = targetCwd ?? sourceManager.getCwd()
    const dir = services.store.resolveLocation(yield* resolveDir(services.store, sessionDir, cwd))
    const core = makeCore(services, options, { cwd, sessionDir: dir, ref: undefined, persist: true })
    const header = yield* newHeader(core, { parentSession: sourceName })
    const ref = services.store.refFor(dir, header)
    const rows = SessionState.rows(sourceManager.getState()).filter((row) =>
      row._tag === "Entry" || row._tag === "LeafControl" || row._tag === "Opaque"
    )
    const oversized = rows.find(Line.isOversized)
    if (oversized !== undefined) {
      return yield* new InvalidSessionFileError({
        path: sourceName,
        reason: `Cannot fork: a line of ${oversized.byteLength} bytes is longer than the line ceiling`,
        line: oversized.line,
        offset: oversized.offset
      })
    }
    // every row with its own bytes (opaque rows, and lines with white space or a CR around them)
    const text = [JSON.stringify(header), ...rows.map(Line.serialize)]
    yield* services.store.exclusive(
      ref,
      (held) => held.create(text, { durability: options.durability ?? "none" }),
      options.lock === undefined ? {} : { lock: options.lock }
    )
    return yield* open(ref, dir, cwd, options)
  })
