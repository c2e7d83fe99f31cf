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

/** Why a holder looks stale. The first five allow a take-over; the last two are report-only while the pid lives. */
export type StaleReason =
  | "malformed"
  | "missing-pid"
  | "invalid-createdAt"
  | "dead-pid"
  | "recycled-pid"
  | "orphan-self-pid"
  | "too-old"
  | "hold-exceeded"

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

/** Parses a payload, or `undefined` if the bytes are not a JSON object. */
export const parsePayload = (bytes: Uint8Array): Partial<LockPayload> | undefined => {
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes))
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Partial<LockPayload>)
      : undefined
  } catch {
    return undefined
  }
}

/** The token in a lock file's bytes, if any. */
export const tokenOf = (bytes: Uint8Array): string | undefined => {
  const token = parsePayload(bytes)?.token
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
  } else if (pid !== undefined && sameHost) {
    const recorded = typeof payload?.starttime === "number" ? payload.starttime : undefined
    const current = alive === true ? backend.starttime(pid) : undefined
    if (alive === false) {
      reasons.push("dead-pid")
      takeover = true
    } else if (recorded !== undefined && current !== undefined && recorded !== current) {
      reasons.push("recycled-pid")
      takeover = true
    } else if (pid === backend.pid && !heldHere) {
      reasons.push("orphan-self-pid")
      takeover = true
    }
  }
  if (ageMs > options.staleMs) {
    reasons.push("too-old")
    // too-old alone never removes a lock whose pid is known to be alive
    if (alive !== true) takeover = true
  }
  const maxHoldMs = payload?.maxHoldMs
  if (typeof maxHoldMs === "number" && ageMs > maxHoldMs) reasons.push("hold-exceeded")
  return { lockPath, payload, pid, hostname, alive, ageMs, reasons, takeover, content }
}
