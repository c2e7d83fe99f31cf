/**
 * Session events (spec §14): lifecycle events (a session was created, resumed, reset, forked,
 * compacted, closed, a sub-agent changed status, a turn started or ended with its outcome) and
 * transcript updates (an entry was appended to a session file).
 *
 * One `SessionEvents` service offers them two ways, with one order:
 * - Effect: `publish*` effects, and `subscribe*` scoped effects that give a `Stream`; the
 *   subscription is taken when the effect runs, so nothing published afterwards is missed.
 * - Plain callbacks: `on*` add a synchronous listener and return its unsubscribe function;
 *   `emit*` publish without Effect. A listener that throws never stops the others or the publisher.
 *
 * A publish is synchronous and atomic: listeners are called, then the event is offered to every
 * stream subscriber, before anything else can publish, so every consumer sees the same order.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Listeners } from "./internal/listeners.js"
import * as SessionKey from "./SessionKey.js"

/** Why a lifecycle event was published. */
export const LifecycleReason = Schema.Literal(
  "create",
  "resume",
  "reset",
  "fork",
  "compact",
  "close",
  "subagent-status",
  "turn-start",
  "turn-end"
)

/** Why a lifecycle event was published. */
export type LifecycleReason = typeof LifecycleReason.Type

/**
 * A lifecycle event: `{sessionKey, agentId?, reason, parentSessionKey?, label?, displayName?}` as
 * spec §14 has it, plus where the session is (`sessionFile`, `sessionId`) and what a UI needs
 * (`entryId`, a sub-agent's `status`, a turn's `outcome` and `errorMessage`).
 */
export const LifecycleEvent = Schema.Struct({
  sessionKey: Schema.String,
  agentId: Schema.optionalWith(Schema.String, { exact: true }),
  reason: LifecycleReason,
  parentSessionKey: Schema.optionalWith(Schema.String, { exact: true }),
  label: Schema.optionalWith(Schema.String, { exact: true }),
  displayName: Schema.optionalWith(Schema.String, { exact: true }),
  /** Where the session is (the store's reference as a string: the session file today). */
  sessionFile: Schema.optionalWith(Schema.String, { exact: true }),
  sessionId: Schema.optionalWith(Schema.String, { exact: true }),
  /** The entry the event is about (the user message of a turn, the compaction). */
  entryId: Schema.optionalWith(Schema.String, { exact: true }),
  /** `subagent-status`: `running`, `done`, `error` or `aborted`. */
  status: Schema.optionalWith(Schema.String, { exact: true }),
  /** `turn-end`: how the turn ended (its stop reason). */
  outcome: Schema.optionalWith(Schema.String, { exact: true }),
  errorMessage: Schema.optionalWith(Schema.String, { exact: true })
})

/** A lifecycle event. */
export type LifecycleEvent = typeof LifecycleEvent.Type

/** Who a transcript update is about; present only when all three are known. */
export const TranscriptTarget = Schema.Struct({
  agentId: Schema.String,
  sessionId: Schema.String,
  sessionKey: Schema.String
})

/** Who a transcript update is about. */
export type TranscriptTarget = typeof TranscriptTarget.Type

/**
 * A normalised transcript update: an entry was written to `sessionFile`; `sessionRef` is the
 * session's reference string (session-store's `SessionRef.format`: a JSONL file's path, or
 * `sqlite:PATH#ID`, …) when the writer gave it.
 */
export const TranscriptUpdate = Schema.Struct({
  sessionFile: Schema.String,
  sessionRef: Schema.optionalWith(Schema.String, { exact: true }),
  entryId: Schema.String,
  sessionKey: Schema.optionalWith(Schema.String, { exact: true }),
  agentId: Schema.optionalWith(Schema.String, { exact: true }),
  sessionId: Schema.optionalWith(Schema.String, { exact: true }),
  messageSeq: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  target: Schema.optionalWith(TranscriptTarget, { exact: true }),
  message: Schema.optionalWith(Schema.Unknown, { exact: true })
})

/** A normalised transcript update. */
export type TranscriptUpdate = typeof TranscriptUpdate.Type

/** What a writer passes to `publishTranscript`; loose on purpose, normalised before delivery. */
export interface TranscriptUpdateInput {
  readonly sessionFile?: string | null | undefined
  /** The session's reference string; stands in for `sessionFile` when that is absent. */
  readonly sessionRef?: string | null | undefined
  readonly entryId?: string | null | undefined
  readonly sessionKey?: string | null | undefined
  readonly agentId?: string | null | undefined
  readonly sessionId?: string | null | undefined
  readonly messageSeq?: number | null | undefined
  readonly target?:
    | {
      readonly agentId?: string | null | undefined
      readonly sessionId?: string | null | undefined
      readonly sessionKey?: string | null | undefined
    }
    | null
    | undefined
  readonly message?: unknown
}

/** Any session event, as carried by `subscribe` and `on`. */
export type SessionEvent =
  | { readonly _tag: "Lifecycle"; readonly event: LifecycleEvent }
  | { readonly _tag: "Transcript"; readonly update: TranscriptUpdate }

const text = (u: unknown): string | undefined => {
  if (typeof u !== "string") return undefined
  const trimmed = u.trim()
  return trimmed === "" ? undefined : trimmed
}

const positiveSafeInteger = (u: unknown): number | undefined =>
  typeof u === "number" && Number.isSafeInteger(u) && u > 0 ? u : undefined

/**
 * Normalises a transcript update as spec §14 says: strings are trimmed and blanks dropped;
 * `messageSeq` is kept only if it is a positive safe integer; `target` is set only when agent id,
 * session id and session key all resolve (the agent id may come from the key); an update without
 * `sessionFile` (or `sessionRef`) or `entryId` gives `None`.
 */
export const normalizeTranscript = (input: TranscriptUpdateInput): Option.Option<TranscriptUpdate> => {
  const sessionRef = text(input.sessionRef)
  const sessionFile = text(input.sessionFile) ?? sessionRef
  const entryId = text(input.entryId)
  if (sessionFile === undefined || entryId === undefined) return Option.none()
  const given = input.target ?? undefined
  const keyForTarget = text(given?.sessionKey) ?? text(input.sessionKey)
  const agentForTarget = text(given?.agentId) ?? text(input.agentId) ??
    (keyForTarget === undefined
      ? undefined
      : Option.getOrUndefined(Option.map(SessionKey.parseAgent(keyForTarget), (p) => p.agentId as string)))
  const idForTarget = text(given?.sessionId) ?? text(input.sessionId)
  const target: TranscriptTarget | undefined =
    agentForTarget !== undefined && idForTarget !== undefined && keyForTarget !== undefined
      ? { agentId: agentForTarget, sessionId: idForTarget, sessionKey: keyForTarget }
      : undefined
  const sessionKey = text(input.sessionKey) ?? target?.sessionKey
  const agentId = text(input.agentId) ?? target?.agentId
  const sessionId = text(input.sessionId) ?? target?.sessionId
  const messageSeq = positiveSafeInteger(input.messageSeq)
  return Option.some({
    sessionFile,
    ...(sessionRef === undefined ? {} : { sessionRef }),
    entryId,
    ...(sessionKey === undefined ? {} : { sessionKey }),
    ...(agentId === undefined ? {} : { agentId }),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(messageSeq === undefined ? {} : { messageSeq }),
    ...(target === undefined ? {} : { target }),
    ...(input.message === undefined ? {} : { message: input.message })
  })
}

/** The `SessionEvents` service. */
export interface SessionEventsShape {
  /** Publishes a lifecycle event to listeners and subscribers. */
  readonly publishLifecycle: (event: LifecycleEvent) => Effect.Effect<void>
  /** Normalises and publishes a transcript update; gives what was published, `None` if dropped. */
  readonly publishTranscript: (input: TranscriptUpdateInput) => Effect.Effect<Option.Option<TranscriptUpdate>>
  /** Subscribes now; the stream gives every event published from then on, in order. */
  readonly subscribe: Effect.Effect<Stream.Stream<SessionEvent>, never, Scope.Scope>
  /** Like `subscribe`, lifecycle events only. */
  readonly subscribeLifecycle: Effect.Effect<Stream.Stream<LifecycleEvent>, never, Scope.Scope>
  /** Like `subscribe`, transcript updates only. */
  readonly subscribeTranscript: Effect.Effect<Stream.Stream<TranscriptUpdate>, never, Scope.Scope>
  /** Adds a synchronous listener for every event; returns its unsubscribe function. */
  readonly on: (listener: (event: SessionEvent) => unknown) => () => void
  /** Adds a synchronous lifecycle listener (spec `onSessionLifecycleEvent`); returns its unsubscribe. */
  readonly onLifecycle: (listener: (event: LifecycleEvent) => unknown) => () => void
  /** Adds a synchronous transcript listener (spec `onSessionTranscriptUpdate`); returns its unsubscribe. */
  readonly onTranscript: (listener: (update: TranscriptUpdate) => unknown) => () => void
  /** Publishes a lifecycle event without Effect (spec `emitSessionLifecycleEvent`). */
  readonly emitLifecycle: (event: LifecycleEvent) => void
  /** Publishes a transcript update without Effect (spec `emitSessionTranscriptUpdate`). */
  readonly emitTranscript: (input: TranscriptUpdateInput) => Option.Option<TranscriptUpdate>
}

/** The `SessionEvents` service tag. */
export class SessionEvents extends Context.Tag("@branchlog/sessions-semantics/SessionEvents")<
  SessionEvents,
  SessionEventsShape
>() {}

const build = (pubsub: PubSub.PubSub<SessionEvent>): SessionEventsShape => {
  const all = new Listeners<SessionEvent>()
  const lifecycle = new Listeners<LifecycleEvent>()
  const transcript = new Listeners<TranscriptUpdate>()

  const deliver = (event: SessionEvent): Array<unknown> => {
    const failures = event._tag === "Lifecycle" ? lifecycle.emit(event.event) : transcript.emit(event.update)
    failures.push(...all.emit(event))
    Queue.unsafeOffer(pubsub, event)
    return failures
  }
  const logFailures = (failures: Array<unknown>): Effect.Effect<void> =>
    failures.length === 0
      ? Effect.void
      : Effect.logDebug("a session event listener threw; the error was swallowed", ...failures)

  const emitLifecycle = (event: LifecycleEvent): void => {
    deliver({ _tag: "Lifecycle", event })
  }
  const emitTranscript = (input: TranscriptUpdateInput): Option.Option<TranscriptUpdate> => {
    const update = normalizeTranscript(input)
    if (Option.isSome(update)) deliver({ _tag: "Transcript", update: update.value })
    return update
  }
  const subscribe = Effect.map(PubSub.subscribe(pubsub), (dequeue) => Stream.fromQueue(dequeue))

  return {
    publishLifecycle: (event) => Effect.flatMap(Effect.sync(() => deliver({ _tag: "Lifecycle", event })), logFailures),
    publishTranscript: (input) =>
      Effect.suspend((): Effect.Effect<Option.Option<TranscriptUpdate>> => {
        const update = normalizeTranscript(input)
        if (Option.isNone(update)) return Effect.succeed(update)
        const failures = deliver({ _tag: "Transcript", update: update.value })
        return Effect.as(logFailures(failures), update)
      }),
    subscribe,
    subscribeLifecycle: Effect.map(
      subscribe,
      Stream.filterMap((e) => (e._tag === "Lifecycle" ? Option.some(e.event) : Option.none()))
    ),
    subscribeTranscript: Effect.map(
      subscribe,
      Stream.filterMap((e) => (e._tag === "Transcript" ? Option.some(e.update) : Option.none()))
    ),
    on: (listener) => all.add(listener),
    onLifecycle: (listener) => lifecycle.add(listener),
    onTranscript: (listener) => transcript.add(listener),
    emitLifecycle,
    emitTranscript
  }
}

/** Builds the service; closing the scope ends every subscriber stream (events not yet pulled are dropped). */
export const make: Effect.Effect<SessionEventsShape, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(PubSub.unbounded<SessionEvent>(), PubSub.shutdown),
  build
)

/** Builds the service outside Effect, for plain callback users; it is never shut down. */
export const unsafeMake = (): SessionEventsShape => build(Effect.runSync(PubSub.unbounded<SessionEvent>()))

/** A layer with a fresh `SessionEvents` for its scope. */
export const layer: Layer.Layer<SessionEvents> = Layer.scoped(SessionEvents, make)

/** A layer that provides an existing instance (for example one made with `unsafeMake`). */
export const layerFrom = (events: SessionEventsShape): Layer.Layer<SessionEvents> =>
  Layer.succeed(SessionEvents, events)

/** Publishes a lifecycle event through the `SessionEvents` in context. */
export const publishLifecycle = (event: LifecycleEvent): Effect.Effect<void, never, SessionEvents> =>
  Effect.flatMap(SessionEvents, (events) => events.publishLifecycle(event))

/** Publishes a transcript update through the `SessionEvents` in context (what the store calls). */
export const publishTranscript = (
  input: TranscriptUpdateInput
): Effect.Effect<Option.Option<TranscriptUpdate>, never, SessionEvents> =>
  Effect.flatMap(SessionEvents, (events) => events.publishTranscript(input))

/** Publishes a transcript update if a `SessionEvents` is provided, else does nothing. */
export const publishTranscriptIfProvided = (
  input: TranscriptUpdateInput
): Effect.Effect<Option.Option<TranscriptUpdate>> =>
  Effect.flatMap(
    Effect.serviceOption(SessionEvents),
    Option.match({ onNone: () => Effect.succeedNone, onSome: (events) => events.publishTranscript(input) })
  )

/** Subscribes to every event through the `SessionEvents` in context. */
export const subscribe: Effect.Effect<Stream.Stream<SessionEvent>, never, SessionEvents | Scope.Scope> = Effect.flatMap(
  SessionEvents,
  (events) => events.subscribe
)
