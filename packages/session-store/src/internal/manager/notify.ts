/**
 * Telling the optional `TranscriptObserver` about entries written (after their write returned),
 * one call per entry; its failures are logged, never propagated into the write.
 */
import type { Entry } from "@branchlog/session-core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SessionRef from "../../SessionRef.js"
import { TranscriptObserver } from "../../TranscriptObserver.js"
import type { TranscriptObserverShape } from "../../TranscriptObserver.js"
import type { Core } from "./core.js"

/** Calls `observer` for each entry. */
export const notifyTo = (observer: TranscriptObserverShape, core: Core, entries: ReadonlyArray<Entry.Entry>) => {
  if (entries.length === 0 || core.ref === undefined) return Effect.void
  const ref = core.ref
  const sessionRef = SessionRef.format(ref)
  const sessionFile = ref._tag === "File" ? ref.path : sessionRef
  const sessionId = core.state.header?.id ?? ""
  return Effect.forEach(entries, (entry) =>
    observer.onAppend({ sessionFile, sessionRef, sessionId, entry }).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("TranscriptObserver.onAppend failed", cause))
    ), { discard: true })
}

/** Calls the observer in context, if any, for each entry. */
export const notify = (core: Core, entries: ReadonlyArray<Entry.Entry>): Effect.Effect<void> =>
  entries.length === 0 ? Effect.void : Effect.withFiberRuntime((fiber) => {
    const observer = Context.getOption(fiber.currentContext, TranscriptObserver)
    return Option.isNone(observer) ? Effect.void : notifyTo(observer.value, core, entries)
  })

/** The entries among written rows. */
export const entriesOf = (rows: ReadonlyArray<{ readonly _tag: string; readonly entry?: Entry.Entry }>) => {
  const entries: Array<Entry.Entry> = []
  for (const row of rows) if (row._tag === "Entry" && row.entry !== undefined) entries.push(row.entry)
  return entries
}
