/** Message builders and file helpers shared by the SessionManager suites. */
import type { AgentMessage } from "@branchlog/session-core"
import { Messages } from "@branchlog/session-core/testing"

/** A user message and an assistant message (session-core's test builders). */
export const { assistant, user } = Messages

/** The lines of a file's text (without the empty segment after the final newline). */
export const linesOf = (text: string | undefined): Array<string> => {
  if (text === undefined || text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** The parsed rows of a file's text (unparseable lines as `{ corrupt: text }`). */
export const rowsOf = (text: string | undefined): Array<Record<string, any>> =>
  linesOf(text).map((line) => {
    try {
      return JSON.parse(line)
    } catch {
      return { corrupt: line }
    }
  })

/** A header line as the references write it. */
export const headerLine = (id: string, cwd = "/work/project", version = 3): string =>
  JSON.stringify({ type: "session", version, id, timestamp: "2026-05-01T09:00:00.000Z", cwd })

/** A message entry line. */
export const entryLine = (id: string, parentId: string | null, message: AgentMessage.AgentMessage): string =>
  JSON.stringify({ type: "message", id, parentId, timestamp: "2026-05-01T09:00:01.000Z", message })
