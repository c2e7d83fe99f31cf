/**
 * The lifecycle events of one agent session, published through sessions-semantics'
 * `SessionEvents` (when one is given): `resume` when the session already was on disk, `create`
 * (or `fork`) once a new session's rows are durable, `turn-start` / `turn-end`, `compact`, and the
 * sub-agent events the `task` tool publishes. Every event is published after the write it reports
 * returned with nothing left pending; a write that failed publishes nothing.
 */
import type { SessionManager } from "@branchlog/session-store"
import type { SessionEvents } from "@branchlog/sessions-semantics"
import * as Effect from "effect/Effect"

/** Who the session is, for its events. */
export interface Identity {
  readonly sessionKey: string
  readonly agentId?: string
  readonly parentSessionKey?: string
  readonly label?: string
}

/** What an event adds to the session's identity. */
export type Extra = Omit<SessionEvents.LifecycleEvent, "sessionKey" | "reason" | "agentId">

/** The publisher of one session. */
export interface Lifecycle {
  readonly identity: Identity
  /** Publishes `reason` for this session (with its file and id). */
  readonly publish: (reason: SessionEvents.LifecycleReason, extra?: Extra) => Effect.Effect<void>
  /** Publishes the pending `create` / `fork` once nothing of the session is pending any more. */
  readonly settle: Effect.Effect<void>
  /** The session switched to a new one (a fork): `fork` is published once it is durable. */
  readonly forked: Effect.Effect<void>
  /** Whether the session's rows are all written. */
  readonly durable: () => boolean
  /** Publishes any event (for another session, e.g. a sub-agent's status). */
  readonly publishRaw: (event: SessionEvents.LifecycleEvent) => Effect.Effect<void>
}

/** A publisher over `sm`; `events` undefined publishes nothing. */
export const make = (
  sm: SessionManager.SessionManager,
  events: SessionEvents.SessionEventsShape | undefined,
  identity: Identity,
  /** Also told every event (after `events`). */
  listener: ((event: SessionEvents.LifecycleEvent) => Effect.Effect<void>) | undefined,
  /** `true` for a session made just now (even if its header is written): `create`, never `resume`. */
  fresh = false
): Effect.Effect<Lifecycle> =>
  Effect.gen(function*() {
    const durable = () => !sm.isPersisted() || sm.pendingCount() === 0
    const publishRaw = (event: SessionEvents.LifecycleEvent) =>
      Effect.zipRight(
        events === undefined ? Effect.void : events.publishLifecycle(event),
        listener === undefined ? Effect.void : listener(event)
      )
    const publish = (reason: SessionEvents.LifecycleReason, extra: Extra = {}) =>
      Effect.suspend(() => {
        const file = sm.getSessionFile()
        return publishRaw({
          sessionKey: identity.sessionKey,
          ...(identity.agentId === undefined ? {} : { agentId: identity.agentId }),
          reason,
          ...(identity.parentSessionKey === undefined ? {} : { parentSessionKey: identity.parentSessionKey }),
          ...(identity.label === undefined ? {} : { label: identity.label }),
          ...(file === undefined ? {} : { sessionFile: file }),
          sessionId: sm.getSessionId(),
          ...extra
        })
      })
    let pending: "create" | "fork" | undefined = undefined
    const settle = Effect.suspend(() => {
      if (pending === undefined || !durable()) return Effect.void
      const reason = pending
      pending = undefined
      return publish(reason)
    })
    if (!fresh && sm.isPersisted() && sm.pendingCount() === 0) yield* publish("resume")
    else pending = "create"
    return {
      identity,
      publish,
      settle,
      forked: Effect.suspend(() => {
        pending = "fork"
        return settle
      }),
      durable,
      publishRaw
    }
  })
