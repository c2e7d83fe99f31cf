/**
 * What the store conformance suite needs of a backend: a name, the layer of its services, and a
 * `Subject` that hides how sessions are addressed (a file path for JSONL, a database row id for
 * SQL). Every case reaches storage only through these members and the `SessionManager` they hand
 * out, so a backend runs the suite by implementing this one interface.
 */
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { InvalidSessionFileError } from "../../SessionError.js"
import type * as SessionManager from "../../SessionManager.js"
import type { SessionInfo } from "../../TranscriptStore.js"

/**
 * The services every case needs: the store (`SessionManager.StoreRequirement`). A backend's own
 * extra services (the file-level ones its adapter reads files with) are its `R` below.
 */
export type Services = SessionManager.StoreRequirement

/** The string form of a session reference (a path for a JSONL file). */
export type Ref = string

/** A place where sessions live, opaque to the suite (a fresh folder for files, a namespace for SQL). */
export type Place = string

/** One session found by listing a place. */
export interface Listed {
  readonly ref: Ref
  readonly info: SessionInfo
}

/** How the suite reaches sessions of one backend (`R`: the services its members need beyond the store). */
export interface Subject<R = never> {
  /** A fresh, empty place, removed when the case's scope closes. */
  readonly place: Effect.Effect<Place, never, Scope.Scope | Services | R>
  /** A new session of `cwd` in `place` (`SessionManager.create`): nothing stored yet. */
  readonly create: (
    place: Place,
    cwd: string,
    options?: SessionManager.Options
  ) => Effect.Effect<SessionManager.SessionManager, SessionManager.WriteError, Services | R>
  /** Opens a session by its reference (`SessionManager.open`); an absent one starts a new session there. */
  readonly open: (
    ref: Ref,
    options?: SessionManager.OpenOptions
  ) => Effect.Effect<SessionManager.SessionManager, SessionManager.OpenError, Services | R>
  /** The reference of a manager's session (defined for every persisted manager, written or not). */
  readonly refOf: (manager: SessionManager.SessionManager) => Ref
  /** A reference in `place` where nothing is stored (`name` is a short word, unique per place). */
  readonly absent: (place: Place, name: string) => Ref
  /** `SessionManager.forkFrom(source, targetCwd, place)`. */
  readonly forkFrom: (
    source: Ref,
    targetCwd: string | undefined,
    place: Place,
    options?: SessionManager.Options
  ) => Effect.Effect<
    SessionManager.SessionManager,
    SessionManager.OpenError | SessionManager.WriteError | InvalidSessionFileError,
    Services | R
  >
  /** `SessionManager.continueRecent(cwd, place)`. */
  readonly continueRecent: (
    place: Place,
    cwd: string,
    options?: SessionManager.Options
  ) => Effect.Effect<SessionManager.SessionManager, SessionManager.OpenError | SessionManager.WriteError, Services | R>
  /** The sessions of `cwd` in `place`, newest first (the store's `list`). */
  readonly list: (place: Place, cwd: string) => Effect.Effect<ReadonlyArray<Listed>, unknown, Services | R>
  /** The most recently written session of `place` (the store's `mostRecent`). */
  readonly mostRecent: (place: Place) => Effect.Effect<Option.Option<Ref>, never, Services | R>
  /** Removes a session (its backups may stay). */
  readonly remove: (ref: Ref) => Effect.Effect<void, unknown, Services | R>
  /** The raw text of every stored row of a session, in order, header first; `undefined`: nothing stored. */
  readonly rows: (ref: Ref) => Effect.Effect<ReadonlyArray<string> | undefined, unknown, Services | R>
  /** The rows of every backup kept of a session (oldest first; their order is not checked). */
  readonly backups: (ref: Ref) => Effect.Effect<ReadonlyArray<ReadonlyArray<string>>, unknown, Services | R>
  /** Stores raw rows as a session another tool wrote (no blank rows); returns its reference. */
  readonly seed: (place: Place, name: string, rows: ReadonlyArray<string>) => Effect.Effect<Ref, unknown, Services | R>
  /** Another writer (not a SessionManager) appends raw rows to a stored session. */
  readonly foreignAppend: (ref: Ref, rows: ReadonlyArray<string>) => Effect.Effect<void, unknown, Services | R>
  /** Another writer replaces every row of a stored session (a rewrite, as a repair tool does). */
  readonly foreignReplace: (ref: Ref, rows: ReadonlyArray<string>) => Effect.Effect<void, unknown, Services | R>
  /**
   * Runs `effect` over a second, independent instance of the backend (its own caches and
   * connections, the same stored sessions), as another process would.
   */
  readonly independent: <A, E>(effect: Effect.Effect<A, E, Services | R>) => Effect.Effect<A, E>
}

/** A backend the suite runs against (`R`: what its subject needs beyond the store; a row backend: nothing). */
export interface Backend<R = never> {
  /** The name `pnpm conformance` prints (`jsonl`, `memory`, `sqlite`, …). */
  readonly name: string
  /** The services, built once for the whole suite of this backend. */
  readonly layer: Layer.Layer<Services | R, unknown>
  /** How the cases reach sessions. */
  readonly subject: Subject<R>
}
