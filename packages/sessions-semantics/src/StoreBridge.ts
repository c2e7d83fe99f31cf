/**
 * The bridge from session-store to `SessionEvents`: a `TranscriptObserver` (the store's optional
 * hook, called once per entry after each verified append) that publishes one transcript update per
 * entry: `{sessionFile, sessionRef, sessionId, entryId: entry.id, messageSeq?, message?}`.
 *
 * `messageSeq` counts the `message` entries of each session (by its reference) as this observer
 * sees them (1, 2, 3, …, strictly increasing per session); other entries carry none. The count starts when the observer is
 * built: messages already in a file, or appended by other processes, are not counted.
 *
 * @since 0.1.0
 */
import { TranscriptObserver } from "@branchlog/session-store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SessionEvents from "./SessionEvents.js"

/** Builds an observer that publishes every append to the `SessionEvents` in context. */
export const makeObserver: Effect.Effect<
  TranscriptObserver.TranscriptObserverShape,
  never,
  SessionEvents.SessionEvents
> = Effect.map(SessionEvents.SessionEvents, (events) => {
  const seqs = new Map<string, number>()
  return {
    onAppend: ({ entry, sessionFile, sessionId, sessionRef }) =>
      Effect.suspend(() => {
        if (entry.type !== "message") {
          return events.publishTranscript({ sessionFile, sessionRef, sessionId, entryId: entry.id })
        }
        const messageSeq = (seqs.get(sessionRef) ?? 0) + 1
        seqs.set(sessionRef, messageSeq)
        return events.publishTranscript({
          sessionFile,
          sessionRef,
          sessionId,
          entryId: entry.id,
          messageSeq,
          message: entry.message
        })
      }).pipe(Effect.asVoid)
  } satisfies TranscriptObserver.TranscriptObserverShape
})

/** Provides the store's `TranscriptObserver` from the `SessionEvents` in context. */
export const layer: Layer.Layer<TranscriptObserver.TranscriptObserver, never, SessionEvents.SessionEvents> = Layer
  .effect(TranscriptObserver.TranscriptObserver, makeObserver)

/** `SessionEvents` (fresh, scoped) and the observer publishing into it, in one layer. */
export const layerWithEvents: Layer.Layer<TranscriptObserver.TranscriptObserver | SessionEvents.SessionEvents> = Layer
  .provideMerge(layer, SessionEvents.layer)
