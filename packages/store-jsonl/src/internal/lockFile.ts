/**
 * The lock file's payload and the pure judgement of whether a holder is stale.
 */
import type { Backend, FileContent } from "./backend.js"

/** What a lock file holds (OpenClaw's shape plus `hostname` and `token`). */
export interface LockPayload {
  readonly pid: number
  readonly hostname?: string
  readonly createdAt: string
  readonly starttime?: number
  readonly maxHoldMs?: number
  readonly token?: string
}

/**
 * Why a holder looks stale. The first six allow a take-over; `too-old` and `hold-exceeded` are
 * report-only while the pid lives and is known to be the holder (its start time matches the one
 * recorded); a live pid that cannot be told apart from a recycled one (no start time recorded)
 * is taken over once the lock is older than both `staleMs` and the holder's own `maxHoldMs`.
 */
export type StaleReason =
  | "not-a-file"
  | "malformed"
  | "missing-pid"
  | "invalid-createdAt"
  | "dead-pid"
  | "recycled-pid"
  | "orphan-self-pid"
  | "too-old"
  | "hold-exceeded"

/** How much later than `createdAt` a process must have started to be certainly not the holder. */
export const START_SLACK_MS = 5_000

/** The judged state of an existing lock file. */
export interface HolderInfo {
  readonly lockPath: string
  /** The parsed payload, if it parsed. */
  readonly payload: Partial<LockPayload> | undefined
  readonly pid: number | undefined
  readonly hostname: string | undefined
  /** `undefined` when it cannot be told (another host, no pid, no permission to ask). */
  readonly alive: boolean | undefined
  /** Milliseconds since `createdAt` (or since the file's mtime when `createdAt` is unusable). */
  readonly ageMs: number
  readonly reasons: ReadonlyArray<StaleReason>
  /** Whether the holder may be taken over now. */
  readonly takeover: boolean
  /** The raw content as read (for remove-if-unchanged). */
  readonly content: FileContent
  /** `true` when a symlink sits at the lock path (no payload; taken over by moving the link). */
  readonly symlink?: boolean
}

/** The staleness thresholds. */
export interface StaleOptions {
  readonly staleMs: number
  readonly graceMs: number
}

const decoder = new TextDecoder()

/** Serialises a payload as OpenClaw does (pretty JSON). */
export const encodePayload = (payload: LockPayload): Uint8Array =>
  new TextEncoder().encode(JSON.stringify(payload, null, 2) + "\n")

/**
 * The same text as `encodePayload` (pretty JSON, one key a line, in this order), written out
 * directly: a lock is taken for every write, and this is most of the cost of its payload.
 */
export const payloadText = (payload: LockPayload): string => {
  let text = `{\n  "pid": ${JSON.stringify(payload.pid)}`
  if (payload.hostname !== undefined) text += `,\n  "hostname": ${JSON.stringify(payload.hostname)}`
  text += `,\n  "createdAt": ${JSON.stringify(payload.createdAt)}`
  if (payload.starttime !== undefined) text += `,\n  "starttime": ${JSON.stringify(payload.starttime)}`
  if (payload.maxHoldMs !== undefined) text += `,\n  "maxHoldMs": ${JSON.stringify(payload.maxHoldMs)}`
  if (payload.token !== undefined) text += `,\n  "token": ${JSON.stringify(payload.token)}`
  return text + "\n}\n"
}

/** Parses a payload, or `undefined` if the bytes are not a JSON object. */
export const parsePayload = (bytes: Uint8Array): Partial<LockPayload> | undefined => parseText(decoder.decode(bytes))

const parseText = (text: string): Partial<LockPayload> | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Partial<LockPayload>)
      : undefined
  } catch {
    return undefined
  }
}

/** The token in a lock file's text, if any. */
export const tokenOfText = (text: string): string | undefined => {
  const token = parseText(text)?.token
  return typeof token === "string" ? token : undefined
}

/** Whether two byte arrays are equal. */
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Judges a lock file found in the way. `heldHere`: whether this process holds that lock file. */
export const judge = (
  backend: Backend,
  lockPath: string,
  content: FileContent,
  nowMs: number,
  options: StaleOptions,
  heldHere: boolean
): HolderInfo => {
  const payload = parsePayload(content.bytes)
  const mtimeAge = nowMs - Number(content.mtimeNs / 1_000_000n)
  const pid = typeof payload?.pid === "number" && Number.isInteger(payload.pid) && payload.pid > 0
    ? payload.pid
    : undefined
  const hostname = typeof payload?.hostname === "string" ? payload.hostname : undefined
  const createdAtMs = typeof payload?.createdAt === "string" ? Date.parse(payload.createdAt) : Number.NaN
  const ageMs = Number.isFinite(createdAtMs) ? nowMs - createdAtMs : mtimeAge
  const sameHost = hostname === undefined || hostname === backend.hostname
  const alive = pid === undefined || !sameHost ? undefined : backend.isAlive(pid)
  const reasons: Array<StaleReason> = []
  let takeover = false

  if (payload === undefined) reasons.push("malformed")
  else if (pid === undefined) reasons.push("missing-pid")
  else if (!Number.isFinite(createdAtMs)) reasons.push("invalid-createdAt")
  if (reasons.length > 0) {
    // a payload being written right now looks malformed for a moment: wait out the grace period
    takeover = mtimeAge > options.graceMs
  }
  const recorded = typeof payload?.starttime === "number" ? payload.starttime : undefined
  const current = alive === true && pid !== undefined ? backend.starttime(pid) : undefined
  if (reasons.length === 0 && pid !== undefined && sameHost) {
    const startedAt = alive === true && recorded === undefined ? backend.startedAtMs(pid) : undefined
    if (alive === false) {
      reasons.push("dead-pid")
      takeover = true
    } else if (recorded !== undefined && current !== undefined && recorded !== current) {
      reasons.push("recycled-pid")
      takeover = true
    } else if (pid === backend.pid && !heldHere) {
      reasons.push("orphan-self-pid")
      takeover = true
    } else if (startedAt !== undefined && startedAt > createdAtMs + START_SLACK_MS) {
      // no start time recorded, but this pid's process started after the lock was written: recycled
      reasons.push("recycled-pid")
      takeover = true
    }
  }
  const maxHoldMs = typeof payload?.maxHoldMs === "number" ? payload.maxHoldMs : undefined
  if (ageMs > options.staleMs) {
    reasons.push("too-old")
    // too-old alone never removes a lock whose holder is known to be alive: the pid lives and its
    // start time matches the recorded one. Without a recorded start time the pid may be anyone's:
    // past the holder's own maxHoldMs too, no write of it can still be running
    const verified = alive === true && recorded !== undefined && current !== undefined && recorded === current
    if (alive !== true || (!verified && ageMs > (maxHoldMs ?? 0))) takeover = true
  }
  if (maxHoldMs !== undefined && ageMs > maxHoldMs) reasons.push("hold-exceeded")
  return { lockPath, payload, pid, hostname, alive, ageMs, reasons, takeover, content }
}
