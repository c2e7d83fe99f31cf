/**
 * An optional observer of verified appends: when a `TranscriptObserver` is in the context of a
 * write, `SessionManager` calls `onAppend` once per entry after the write returned and the file's
 * snapshot was taken (sessions-semantics implements it to publish transcript events). Without one,
 * nothing happens. Failures of the observer are logged, never propagated into the write.
 *
 * @since 0.1.0
 */
import type { Entry } from "@branchlog/session-core"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** What was appended, and where. */
export interface AppendEvent {
  /** The session's reference string (`SessionRef.format`): a JSONL file's path, `sqlite:PATH#ID`, …. */
  readonly sessionRef: string
  /** The JSONL file's path (for other stores, the same as `sessionRef`). */
  readonly sessionFile: string
  readonly sessionId: string
  readonly entry: Entry.Entry
}

/** The service. */
export interface TranscriptObserverShape {
  /** Called after each verified append of an entry. */
  readonly onAppend: (event: AppendEvent) => Effect.Effect<void>
}

/** The TranscriptObserver service tag (optional: looked up with `Effect.serviceOption`). */
export class TranscriptObserver extends Context.Tag("@branchlog/session-store/TranscriptObserver")<
  TranscriptObserver,
  TranscriptObserverShape
>() {}
