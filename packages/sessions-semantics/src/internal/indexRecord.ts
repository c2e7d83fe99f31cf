/**
 * Session index records as plain JSON objects: completing the fields that can be derived (agent
 * id, kind, chat type, transcript file, parent key, times) and applying a patch. Unknown fields
 * are carried along untouched, in their order. Validation is the caller's (`SessionIndex`).
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as AgentId from "../AgentId.js"
import * as SessionKey from "../SessionKey.js"
import * as SessionKind from "../SessionKind.js"

/** A record as stored: a JSON object. */
export type RawRecord = Record<string, unknown>

/** The fields a patch cannot set: derived from the key, or kept by the index. */
export const DERIVED_FIELDS: ReadonlySet<string> = new Set(["agentId", "kind", "createdAt", "updatedAt"])

const CHAT_TYPES: ReadonlySet<string> = new Set(SessionKind.ChatType.literals)

const str = (u: unknown): string | undefined => (typeof u === "string" && u.trim() !== "" ? u : undefined)
const num = (u: unknown): number | undefined => (typeof u === "number" && Number.isFinite(u) ? u : undefined)

/** Whether a JSON value is an object that can hold a record. */
export const isRawRecord = (u: unknown): u is RawRecord => typeof u === "object" && u !== null && !Array.isArray(u)

/** What completing needs besides the record: the index folder and the agent of keys without one. */
export interface Context {
  /** The folder of the index; a record without `sessionFile` has `<dir>/<sessionId>.jsonl` (as OpenClaw). */
  readonly dir: string
  /** The agent of keys that do not name one (legacy keys): the index's agent. */
  readonly agentId: AgentId.AgentId
}

const joinPath = (dir: string, name: string): string => (dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`)

/**
 * Fills what a record lacks and re-derives what the key decides: `agentId` (the key's, else the
 * record's, else the index's), `kind` (always re-classified), `chatType` (kept if valid, else from
 * the key), `sessionFile`, `parentKey` (thread base, enclosing sub-agent, or `spawnedBy`),
 * `createdAt` / `updatedAt` (each other's value, else 0). Unknown fields are kept in place.
 */
export const complete = (key: string, raw: RawRecord, context: Context): RawRecord => {
  const out: RawRecord = { ...raw }
  const fromKey = SessionKey.parseAgent(key)
  out.agentId = Option.isSome(fromKey)
    ? fromKey.value.agentId
    : str(raw.agentId) !== undefined
    ? AgentId.normalize(raw.agentId as string)
    : context.agentId
  const chatType = typeof raw.chatType === "string" && CHAT_TYPES.has(raw.chatType)
    ? raw.chatType
    : SessionKind.chatTypeOf(key)
  out.chatType = chatType
  out.kind = SessionKind.classify(key, {
    chatType: typeof raw.chatType === "string" ? raw.chatType : undefined,
    spawnedBy: typeof raw.spawnedBy === "string" ? raw.spawnedBy : undefined
  })
  const sessionId = str(raw.sessionId)
  if (str(raw.sessionFile) === undefined && sessionId !== undefined) {
    out.sessionFile = joinPath(context.dir, `${sessionId}.jsonl`)
  }
  if (str(raw.parentKey) === undefined) {
    const parent = Option.getOrUndefined(SessionKey.parentKey(key)) ?? str(raw.spawnedBy)
    if (parent === undefined) delete out.parentKey
    else out.parentKey = SessionKey.normalize(parent)
  }
  const createdAt = num(raw.createdAt) ?? num(raw.updatedAt) ?? 0
  out.createdAt = createdAt
  out.updatedAt = num(raw.updatedAt) ?? createdAt
  return out
}

/**
 * Applies a patch at time `now`: `undefined` values are ignored, `null` deletes a field, derived
 * fields (`agentId`, `kind`, `createdAt`, `updatedAt`) are not taken from the patch; `createdAt` is
 * kept (or set to `now` for a new record) and `updatedAt` becomes `now` (never going back).
 */
export const applyPatch = (
  existing: RawRecord | undefined,
  patch: Readonly<Record<string, unknown>>,
  now: number
): RawRecord => {
  const out: RawRecord = { ...existing }
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || DERIVED_FIELDS.has(field)) continue
    if (value === null) delete out[field]
    else out[field] = value
  }
  const previousUpdate = num(existing?.updatedAt)
  out.createdAt = num(existing?.createdAt) ?? previousUpdate ?? now
  out.updatedAt = Math.max(now, previousUpdate ?? now)
  return out
}

/** The channel of a session: the record's `channel` field, else the key's route (`telegram` in `…:telegram:direct:…`). */
export const channelOf = (key: string, raw?: RawRecord): string | undefined => {
  const explicit = str(raw?.channel)
  if (explicit !== undefined) return explicit.trim().toLowerCase()
  const parsed = SessionKey.parse(key)
  if (parsed._tag === "Left" || parsed.right._tag === "Sentinel") return undefined
  const scope = parsed.right.scope
  if ((scope._tag === "Direct" || scope._tag === "Conversation") && scope.route !== undefined) {
    return scope.route.channel
  }
  if (scope._tag === "Opaque") {
    if (/@g\.us$/.test(scope.rest)) return "whatsapp"
    const head = scope.rest.split(":")[0]
    if (head === "discord" || head === "whatsapp") return head
  }
  return undefined
}
