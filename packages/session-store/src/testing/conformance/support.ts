/**
 * What the conformance cases share: the `Case` and `Group` shapes, message builders, rows seeded
 * as another tool writes them, and the views of a manager that must survive a reopen.
 */
import type { AgentMessage } from "@branchlog/session-core"
import { Messages } from "@branchlog/session-core/testing"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as SessionManager from "../../SessionManager.js"
import type { Place, Ref, Services, Subject } from "./Backend.js"

/** A session another tool wrote, as its bytes (a reference fixture): what the suite stores as it is. */
export interface Fixture {
  readonly name: string
  readonly bytes: Uint8Array
}

/** What a case is given beside the backend: the fixtures the suite was handed (`[]` when none). */
export interface Context {
  readonly fixtures: ReadonlyArray<Fixture>
}

/** One case: a name and an effect that fails (an assertion throws) when the backend breaks the promise. */
export interface Case {
  readonly name: string
  readonly run: <R>(subject: Subject<R>, context: Context) => Effect.Effect<void, unknown, Services | R | Scope.Scope>
  /** Its own time limit, for a case that does much (the suite's applies when it is longer). */
  readonly timeout?: number
}

/** A named group of cases (one module each). */
export interface Group {
  readonly name: string
  readonly cases: ReadonlyArray<Case>
}

/** A case. */
export const test = (name: string, run: Case["run"], options: { readonly timeout?: number } = {}): Case =>
  options.timeout === undefined ? { name, run } : { name, run, timeout: options.timeout }

/** A user message and an assistant message (session-core's test builders). */
export const { assistant, user } = Messages

/** A tool result message. */
export const toolResult = (text: string): AgentMessage.AgentMessage => ({
  role: "toolResult",
  toolCallId: "call-1",
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: Date.parse("2026-05-01T11:00:00.000Z")
})

/** Rows parsed (a row that is no JSON as `{ corrupt: text }`). */
export const parse = (rows: ReadonlyArray<string> | undefined): Array<Record<string, any>> =>
  (rows ?? []).map((row) => {
    try {
      return JSON.parse(row)
    } catch {
      return { corrupt: row }
    }
  })

/** The stored rows of a session, parsed (`[]` when nothing is stored). */
export const stored = <R>(subject: Subject<R>, ref: Ref) => Effect.map(subject.rows(ref), parse)

/** The stored rows' raw text (`[]` when nothing is stored). */
export const raw = <R>(subject: Subject<R>, ref: Ref) => Effect.map(subject.rows(ref), (rows) => rows ?? [])

/** A header row as the references write it. */
export const headerRow = (id: string, cwd = "/work/project", version: number | null = 3): string =>
  JSON.stringify({
    type: "session",
    ...(version === null ? {} : { version }),
    id,
    timestamp: "2026-05-01T09:00:00.000Z",
    cwd
  })

/** A message entry row. */
export const entryRow = (id: string, parentId: string | null, message: AgentMessage.AgentMessage): string =>
  JSON.stringify({ type: "message", id, parentId, timestamp: "2026-05-01T09:00:01.000Z", message })

/** A session of two turns another tool wrote: header, user, assistant, user, assistant (ids `e0000001`…). */
export const seededTurns = (id = "seeded-1", cwd = "/work/project"): Array<string> => [
  headerRow(id, cwd),
  entryRow("e0000001", null, { ...user("first question"), timestamp: 1_000 }),
  entryRow("e0000002", "e0000001", { ...assistant("first answer"), timestamp: 2_000 }),
  entryRow("e0000003", "e0000002", { ...user("second question"), timestamp: 3_000 }),
  entryRow("e0000004", "e0000003", { ...assistant("second answer"), timestamp: 4_000 })
]

/** Appends `turns` user/assistant pairs; returns their ids in order. */
export const converse = (manager: SessionManager.SessionManager, turns: number, prefix = "t") =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    for (let i = 0; i < turns; i++) {
      ids.push(yield* manager.appendMessage(user(`${prefix}${i} question`)))
      ids.push(yield* manager.appendMessage(assistant(`${prefix}${i} answer`)))
    }
    return ids
  })

/** A new session in a fresh place with `turns` turns written. */
export const written = <R>(subject: Subject<R>, turns = 1, options?: SessionManager.Options) =>
  Effect.gen(function*() {
    const place: Place = yield* subject.place
    const manager = yield* subject.create(place, "/work/project", options)
    const ids = yield* converse(manager, turns)
    return { place, manager, ref: subject.refOf(manager), ids }
  })

/** Opens a session again through an independent instance of the backend (no shared cache). */
export const reopen = <R>(subject: Subject<R>, ref: Ref, options?: SessionManager.OpenOptions) =>
  subject.independent(subject.open(ref, options))

/** Everything a reader sees of a session: what must be equal before and after a reopen. */
export const view = (manager: SessionManager.SessionManager) => ({
  header: manager.getHeader(),
  leaf: manager.getLeafId(),
  entries: manager.getEntries().map((entry) => JSON.stringify(entry)),
  tree: manager.getTree(),
  branch: manager.getBranch(),
  context: manager.buildSessionContext(),
  name: manager.getSessionName()
})
