/**
 * The one definition of a listing: the `SessionInfo` of a session read from its rows (id, cwd,
 * name, parent, created and last activity, message count, first user message, every message's
 * text up to {@link MAX_ALL_MESSAGES_TEXT}). Every backend's `list` folds a session's rows through
 * an {@link infoReader}, so listings agree whatever stores the session (the conformance suite's
 * listing group holds every backend to it).
 *
 * @since 0.2.0
 */
import type { Line } from "@branchlog/session-core"
import * as Option from "effect/Option"
import type { SessionInfo } from "./TranscriptStore.js"

/** How much of the messages' text `allMessagesText` keeps (64 Mi characters). */
export const MAX_ALL_MESSAGES_TEXT = 64 * 1024 * 1024

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content
    .filter((block): block is { type: "text"; text: string } =>
      typeof block === "object" && block !== null && block.type === "text" && typeof block.text === "string"
    )
    .map((block) => block.text)
    .join(" ")
}

/** Reads rows one by one into a `SessionInfo` (the listing's summary fields), for any store. */
export interface InfoReader {
  /** Takes the next row; `false` once the rows cannot be a session (the first row is no header). */
  readonly push: (parsed: Line.ParsedLine) => boolean
  /** The summary (`None` if the first row was not a session header with an id). */
  readonly result: (path: string, mtimeMs: number) => Option.Option<SessionInfo>
}

/** A fresh {@link InfoReader}. */
export const infoReader = (): InfoReader => {
  let header: Record<string, unknown> | undefined
  let invalid = false
  let messageCount = 0
  let firstMessage: string | undefined
  const texts: Array<string> = []
  let textLength = 0
  let name: string | undefined
  let lastActivity = Number.NaN
  return {
    push: (parsed) => {
      if (invalid) return false
      if (parsed._tag === "Blank" || parsed._tag === "Corrupt") return true
      if (header === undefined) {
        if (parsed._tag !== "Header") invalid = true
        else header = parsed.header as Record<string, unknown>
        return !invalid
      }
      if (parsed._tag !== "Entry") return true
      const entry = parsed.entry
      if (entry.type === "session_info") {
        name = typeof entry.name === "string"
          ? entry.name.trim() || undefined
          : undefined
      }
      if (entry.type !== "message") return true
      messageCount += 1
      const message = entry.message as {
        readonly role: string
        readonly content?: unknown
        readonly timestamp?: unknown
      }
      if (message.role !== "user" && message.role !== "assistant") return true
      const text = textOf(message.content)
      if (text.length > 0 && textLength < MAX_ALL_MESSAGES_TEXT) {
        texts.push(text)
        textLength += text.length + 1
      }
      if (message.role === "user" && firstMessage === undefined && text.length > 0) firstMessage = text
      const at = typeof message.timestamp === "number" ? message.timestamp : Date.parse(entry.timestamp)
      if (!Number.isNaN(at) && !(at <= lastActivity)) lastActivity = at
      return true
    },
    result: (path, mtimeMs) => {
      if (invalid || header === undefined || typeof header.id !== "string") return Option.none()
      const created = typeof header.timestamp === "string" ? Date.parse(header.timestamp) : Number.NaN
      const modified = !Number.isNaN(lastActivity) ? lastActivity : !Number.isNaN(created) ? created : mtimeMs
      return Option.some<SessionInfo>({
        path,
        id: header.id,
        cwd: typeof header.cwd === "string" ? header.cwd : "",
        ...(name === undefined ? {} : { name }),
        ...(typeof header.parentSession === "string" ? { parentSessionPath: header.parentSession } : {}),
        created: new Date(Number.isNaN(created) ? mtimeMs : created),
        modified: new Date(modified),
        messageCount,
        firstMessage: firstMessage ?? "(no messages)",
        allMessagesText: texts.join(" ").slice(0, MAX_ALL_MESSAGES_TEXT)
      })
    }
  }
}
