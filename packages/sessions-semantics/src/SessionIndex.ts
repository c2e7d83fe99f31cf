/**
 * The session index: session key → session record (session id, transcript file, agent, kind,
 * chat type, names, parent, times), one JSON file per agent (`…/agents/<agentId>/sessions/sessions.json`,
 * the OpenClaw shape `{ [key]: record }`).
 *
 * Every operation runs under the cross-process `TranscriptLock` of the index path, so concurrent
 * read-modify-write upserts from many processes lose nothing. A write first copies the current
 * good index to `<path>.bak` (atomically), then replaces the index atomically (temporary file,
 * fsync, rename). An index found empty, cut off or otherwise unusable is repaired under the lock
 * the first time any operation sees it: its bytes (if any) are kept aside as
 * `<path>.corrupt-<timestamp>-<hex>.jsonl`, it is restored from the backup (or started empty), and a
 * `SessionIndexRecovery` report is logged, kept in `recoveries` and passed to `onRecovery`.
 *
 * @since 0.1.0
 */
import { StoreError } from "@branchlog/session-store"
import { TranscriptFile, TranscriptLock } from "@branchlog/store-jsonl"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AgentId from "./AgentId.js"
import * as Doc from "./internal/indexDocument.js"
import * as Rec from "./internal/indexRecord.js"
import * as SessionKey from "./SessionKey.js"
import * as SessionKind from "./SessionKind.js"

/** One session in the index. Unknown fields of a stored record are kept when it is read and written back. */
export const SessionRecord = Schema.Struct({
  sessionId: Schema.NonEmptyTrimmedString,
  sessionFile: Schema.NonEmptyTrimmedString,
  /** The session's reference string when it is not (only) a JSONL file: `sqlite:PATH#ID`, `postgres://…#ID`. */
  sessionRef: Schema.optionalWith(Schema.NonEmptyTrimmedString, { exact: true }),
  agentId: AgentId.AgentId,
  kind: SessionKind.SessionKind,
  chatType: SessionKind.ChatType,
  displayName: Schema.optionalWith(Schema.String, { exact: true }),
  label: Schema.optionalWith(Schema.String, { exact: true }),
  parentKey: Schema.optionalWith(Schema.String, { exact: true }),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
}).annotations({ identifier: "SessionRecord" })

/** One session in the index (plus whatever unknown fields it was stored with). */
export type SessionRecord = typeof SessionRecord.Type

/**
 * A change to a record. `undefined` leaves a field as it is, `null` deletes it; `agentId`, `kind`,
 * `createdAt` and `updatedAt` are derived or kept by the index. Other fields (OpenClaw's
 * `spawnedBy`, `channel`, …) are stored as given. A new record needs `sessionId`; without
 * `sessionFile` it gets `<index folder>/<sessionId>.jsonl`.
 */
export interface SessionPatch {
  readonly sessionId?: string | undefined
  readonly sessionFile?: string | null | undefined
  /** The session's reference string (session-store's `SessionRef.format`); `null` deletes it. */
  readonly sessionRef?: string | null | undefined
  readonly chatType?: SessionKind.ChatType | null | undefined
  readonly displayName?: string | null | undefined
  readonly label?: string | null | undefined
  readonly parentKey?: string | null | undefined
  readonly spawnedBy?: string | null | undefined
  readonly [field: string]: unknown
}

/** A session found by `list`: its normalised key, its record, and its channel if known. */
export interface IndexedSession {
  readonly key: SessionKey.SessionKey
  readonly record: SessionRecord
  readonly channel: Option.Option<string>
}

/** What `list` keeps: sessions of one kind and/or one channel (`telegram`, `discord`, …). */
export interface ListFilter {
  readonly kind?: SessionKind.SessionKind | undefined
  readonly channel?: string | undefined
}

/** Why an index had to be recovered. */
export const RecoveryReason = Schema.Literal("empty", "truncated", "not-json", "not-an-object")

/** Why an index had to be recovered. */
export type RecoveryReason = typeof RecoveryReason.Type

/** The report of a recovery: what was wrong, where the damaged bytes went, what was restored. */
export class SessionIndexRecovery extends Schema.TaggedClass<SessionIndexRecovery>()("SessionIndexRecovery", {
  path: Schema.String,
  reason: RecoveryReason,
  detail: Schema.String,
  byteLength: Schema.Number,
  keptAside: Schema.optional(Schema.String),
  restoredFrom: Schema.Literal("backup", "nothing"),
  backupPath: Schema.String,
  backupProblem: Schema.optional(Schema.String),
  backupKeptAside: Schema.optional(Schema.String),
  restoredKeys: Schema.Number
}) {
  /** A readable one-line description. */
  get message(): string {
    const aside = this.keptAside === undefined ? "" : `; damaged bytes kept at ${this.keptAside}`
    const from = this.restoredFrom === "backup"
      ? `restored ${this.restoredKeys} session(s) from ${this.backupPath}`
      : `started empty (backup: ${this.backupProblem ?? "none"})`
    return `session index ${this.path} was ${this.reason} (${this.detail}): ${from}${aside}`
  }
}

/** A key given to the index does not parse; names the index path and the wrong part. */
export class SessionIndexKeyError extends Schema.TaggedError<SessionIndexKeyError>()("SessionIndexKeyError", {
  path: Schema.String,
  key: Schema.String,
  part: SessionKey.ErrorPart,
  detail: Schema.String
}) {
  /** A readable one-line description. */
  override get message(): string {
    return `session index ${this.path}: invalid key ${JSON.stringify(this.key)} (${this.part}): ${this.detail}`
  }
}

/** An upsert would leave an invalid record (no `sessionId`, a bad chat type, …); nothing was written. */
export class SessionRecordError extends Schema.TaggedError<SessionRecordError>()("SessionRecordError", {
  path: Schema.String,
  key: Schema.String,
  detail: Schema.String
}) {
  /** A readable one-line description. */
  override get message(): string {
    return `session index ${this.path}: invalid record for ${this.key}: ${this.detail}`
  }
}

/** Any error of the index: a bad key or record, or a filesystem / lock error of the store (naming its path). */
export type SessionIndexError =
  | SessionIndexKeyError
  | SessionRecordError
  | StoreError.FileSystemError
  | StoreError.LockTimeoutError
  | StoreError.LockUnusableError

/** Options of `make` / `layer`. */
export interface Options {
  /** The agent of keys that name none (legacy keys); default: from the path `…/agents/<id>/…`, else `main`. */
  readonly agentId?: string
  /** Options of the index lock (timeout, retry delay, …). */
  readonly lock?: TranscriptLock.LockOptions
  /** Called with every recovery report, besides the warning log. */
  readonly onRecovery?: (report: SessionIndexRecovery) => void
}

/** The service. */
export interface SessionIndexShape {
  /** The index file. */
  readonly path: string
  /** The record of a key (normalised first), if any. */
  readonly get: (key: string) => Effect.Effect<Option.Option<SessionRecord>, SessionIndexError>
  /** Creates or changes the record of a key under the lock (read-modify-write); gives the stored record. */
  readonly upsert: (key: string, patch: SessionPatch) => Effect.Effect<SessionRecord, SessionIndexError>
  /** Deletes the record of a key; `true` if there was one. */
  readonly remove: (key: string) => Effect.Effect<boolean, SessionIndexError>
  /** Every valid session (most recently updated first), filtered by kind and/or channel. */
  readonly list: (filter?: ListFilter) => Effect.Effect<ReadonlyArray<IndexedSession>, SessionIndexError>
  /** The recoveries this instance has made, oldest first. */
  readonly recoveries: Effect.Effect<ReadonlyArray<SessionIndexRecovery>>
}

/** The SessionIndex service tag. */
export class SessionIndex extends Context.Tag("@branchlog/sessions-semantics/SessionIndex")<
  SessionIndex,
  SessionIndexShape
>() {}

const decodeRecord = Schema.decodeUnknownEither(SessionRecord, { onExcessProperty: "preserve", errors: "all" })

const isChatType = Schema.is(SessionKind.ChatType)

const dirnameOf = (path: string): string => {
  const index = path.lastIndexOf("/")
  return index <= 0 ? (index === 0 ? "/" : ".") : path.slice(0, index)
}

const agentOfPath = (path: string): AgentId.AgentId => {
  const match = /(?:^|\/)agents\/([^/]+)\/sessions\/[^/]*$/.exec(path)
  return AgentId.normalize(match?.[1])
}

type Loaded = { readonly entries: Doc.Entries; readonly goodText: Option.Option<string> }

/** Builds the index service for the file at `path` over the store's file and lock services. */
export const make = (
  path: string,
  options: Options = {}
): Effect.Effect<SessionIndexShape, never, TranscriptLock.TranscriptLock | TranscriptFile.TranscriptFile> =>
  Effect.gen(function*() {
    const locks = yield* TranscriptLock.TranscriptLock
    const file = yield* TranscriptFile.TranscriptFile
    const backupPath = `${path}.bak`
    const context: Rec.Context = {
      dir: dirnameOf(path),
      agentId: options.agentId === undefined ? agentOfPath(path) : AgentId.normalize(options.agentId)
    }
    const reports: Array<SessionIndexRecovery> = []

    /** The text of a file, or `None` when it does not exist. */
    const textOf = (target: string): Effect.Effect<Option.Option<Doc.FileText>, StoreError.FileSystemError> =>
      Stream.runCollect(file.lines(target)).pipe(
        Effect.map((lines) => Option.some(Doc.joinLines(Chunk.toReadonlyArray(lines)))),
        Effect.catchTag("FileNotFoundError", () => Effect.succeedNone),
        Effect.catchTag(
          "NotRegularFileError",
          (e) =>
            Effect.fail(new StoreError.FileSystemError({ path: e.path, operation: e.operation, detail: e.message }))
        )
      )

    const keepAside = (target: string) =>
      file.backup(target, { label: "corrupt" }).pipe(
        Effect.catchTag("FileNotFoundError", (e) =>
          Effect.fail(new StoreError.FileSystemError({ path: e.path, operation: "keep aside", detail: "vanished" })))
      )

    /** Repairs a damaged index under the lock: keep the bytes aside, restore the backup or start empty, report. */
    const recover = (damaged: Doc.FileText, reason: Doc.DamageReason, detail: string) =>
      Effect.gen(function*() {
        const keptAside = damaged.byteLength > 0 ? yield* keepAside(path) : undefined
        const backup = yield* textOf(backupPath)
        let entries: Doc.Entries = {}
        let restoredText = Doc.EMPTY
        let backupProblem: string | undefined
        let backupKeptAside: string | undefined
        if (Option.isNone(backup)) {
          backupProblem = "missing"
        } else {
          const state = Doc.classify(backup.value.text)
          if (state._tag === "Good") {
            entries = state.entries
            restoredText = backup.value.text
          } else {
            backupProblem = `${state.reason}: ${state.detail}`
            if (backup.value.byteLength > 0) backupKeptAside = yield* keepAside(backupPath)
          }
        }
        yield* file.rewrite(path, restoredText)
        const report = new SessionIndexRecovery({
          path,
          reason,
          detail,
          byteLength: damaged.byteLength,
          ...(keptAside === undefined ? {} : { keptAside }),
          restoredFrom: backupProblem === undefined ? "backup" : "nothing",
          backupPath,
          ...(backupProblem === undefined ? {} : { backupProblem }),
          ...(backupKeptAside === undefined ? {} : { backupKeptAside }),
          restoredKeys: Object.keys(entries).length
        })
        reports.push(report)
        yield* Effect.logWarning(report.message)
        if (options.onRecovery !== undefined) {
          const notify = options.onRecovery
          yield* Effect.sync(() => notify(report)).pipe(Effect.catchAllDefect(() => Effect.void))
        }
        return { entries, goodText: Option.some(restoredText) } satisfies Loaded
      })

    /** Reads the index (under the lock), repairing it first if it is damaged. */
    const load: Effect.Effect<Loaded, StoreError.FileSystemError> = Effect.gen(function*() {
      const content = yield* textOf(path)
      if (Option.isNone(content)) return { entries: {}, goodText: Option.none() }
      const state = Doc.classify(content.value.text)
      if (state._tag === "Good") return { entries: state.entries, goodText: Option.some(content.value.text) }
      return yield* recover(content.value, state.reason, state.detail)
    })

    /** Replaces the index: back up the current good text first (both writes atomic). */
    const store = (loaded: Loaded, entries: Doc.Entries) =>
      Effect.gen(function*() {
        if (Option.isSome(loaded.goodText)) yield* file.rewrite(backupPath, loaded.goodText.value)
        yield* file.rewrite(path, Doc.serialize(entries))
      })

    const locked = <A, E>(effect: Effect.Effect<A, E>) => locks.withLock(path, effect, options.lock)

    const keyOf = (raw: string): Effect.Effect<SessionKey.SessionKey, SessionIndexKeyError> =>
      Either.match(SessionKey.make(raw), {
        onLeft: (e) => Effect.fail(new SessionIndexKeyError({ path, key: raw, part: e.part, detail: e.detail })),
        onRight: Effect.succeed
      })

    const validate = (key: string, raw: unknown): Either.Either<SessionRecord, string> => {
      if (!Rec.isRawRecord(raw)) return Either.left("the stored value is not an object")
      return Either.mapLeft(decodeRecord(Rec.complete(key, raw, context)), (e) => e.message)
    }

    const find = (entries: Doc.Entries, key: string): Option.Option<SessionRecord> => {
      for (const stored of Doc.storedKeysOf(entries, key)) {
        const record = validate(key, entries[stored])
        if (Either.isRight(record)) return Option.some(record.right)
      }
      return Option.none()
    }

    const get = (raw: string) =>
      Effect.flatMap(keyOf(raw), (key) => locked(Effect.map(load, (loaded) => find(loaded.entries, key))))

    const upsert = (raw: string, patch: SessionPatch) =>
      Effect.flatMap(keyOf(raw), (key) =>
        locked(Effect.gen(function*() {
          const loaded = yield* load
          const now = yield* Clock.currentTimeMillis
          const chatType = patch.chatType
          if (chatType !== undefined && chatType !== null && !isChatType(chatType)) {
            const detail = `chatType must be one of ${SessionKind.ChatType.literals.join(", ")}, got ${
              JSON.stringify(chatType)
            }`
            return yield* new SessionRecordError({ path, key, detail })
          }
          const stored = Doc.storedKeysOf(loaded.entries, key)
          const existing = stored.map((k) => loaded.entries[k]).find(Rec.isRawRecord)
          const merged = Rec.complete(key, Rec.applyPatch(existing, patch, now), context)
          const record = decodeRecord(merged)
          if (Either.isLeft(record)) {
            return yield* new SessionRecordError({ path, key, detail: record.left.message })
          }
          const entries: Doc.Entries = {}
          let placed = false
          for (const [k, v] of Object.entries(loaded.entries)) {
            if (!stored.includes(k)) entries[k] = v
            else if (!placed) {
              entries[key] = merged
              placed = true
            }
          }
          if (!placed) entries[key] = merged
          yield* store(loaded, entries)
          return record.right
        })))

    const remove = (raw: string) =>
      Effect.flatMap(keyOf(raw), (key) =>
        locked(Effect.gen(function*() {
          const loaded = yield* load
          const stored = Doc.storedKeysOf(loaded.entries, key)
          if (stored.length === 0) return false
          const entries: Doc.Entries = {}
          for (const [k, v] of Object.entries(loaded.entries)) if (!stored.includes(k)) entries[k] = v
          yield* store(loaded, entries)
          return true
        })))

    const list = (filter: ListFilter = {}) =>
      locked(Effect.map(load, (loaded) => {
        const channel = filter.channel?.trim().toLowerCase()
        const found = new Map<string, IndexedSession>()
        for (const [stored, value] of Object.entries(loaded.entries)) {
          const key = SessionKey.make(stored)
          if (Either.isLeft(key) || found.has(key.right)) continue
          const record = find(loaded.entries, key.right)
          if (Option.isNone(record)) continue
          if (filter.kind !== undefined && record.value.kind !== filter.kind) continue
          const sessionChannel = Rec.channelOf(key.right, Rec.isRawRecord(value) ? value : undefined)
          if (channel !== undefined && channel !== "" && sessionChannel !== channel) continue
          found.set(key.right, { key: key.right, record: record.value, channel: Option.fromNullable(sessionChannel) })
        }
        return [...found.values()].sort((a, b) =>
          b.record.updatedAt - a.record.updatedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
        )
      }))

    return {
      path,
      get,
      upsert,
      remove,
      list,
      recoveries: Effect.sync(() => [...reports])
    } satisfies SessionIndexShape
  })

/** A layer with the index of `path`; give it the store's Node layers or its memory layers. */
export const layer = (
  path: string,
  options?: Options
): Layer.Layer<SessionIndex, never, TranscriptLock.TranscriptLock | TranscriptFile.TranscriptFile> =>
  Layer.effect(SessionIndex, make(path, options))

/** The channel of a key (and optionally its record's `channel` field), as `list` filters it. */
export const channelOf = (key: string, record?: Readonly<Record<string, unknown>>): Option.Option<string> =>
  Option.fromNullable(Rec.channelOf(SessionKey.normalize(key), record === undefined ? undefined : { ...record }))
