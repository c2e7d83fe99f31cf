/**
 * The row classifier of the line codec: a hand-written guard, kept equal to the
 * `Line.EntryEnvelope` / `Line.LeafControlEnvelope` schemas by a property test, because running a
 * schema decoder over every row costs several times the `JSON.parse` before it.
 */
import { canonicalEntryTypes } from "./entryTypes.js"

const canonicalTypes: ReadonlySet<string> = new Set(canonicalEntryTypes)
/** `true` for a canonical entry type. */
export const isCanonicalType = (type: unknown): boolean => typeof type === "string" && canonicalTypes.has(type)

/** A string with something other than white space in it. */
export const isNonBlank = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0

/** A non-null object that is not an array. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isParentRef = (value: unknown): boolean => value === null || typeof value === "string"

/** What a parsed JSON object is. */
export type RowKind = "header" | "entry" | "leaf" | "opaque"

/**
 * Classifies one parsed JSON object.
 * - `header`: `type: "session"` with a string `id`.
 * - `entry`: a canonical type with a non-blank `id`, a `parentId` that is a string or null and a
 *   `timestamp` that is a string, each when present, and for `message` a message object with a
 *   non-blank `role`. (OpenClaw 2026.6 checks only the type and the id; its later codec checks
 *   these and more. A row that fails is opaque, never dropped.)
 * - `leaf`: `type: "leaf"` with a non-blank `id`, a `parentId` (string or null) and a `targetId`
 *   (string or null), an `appendParentId` that is a string or null when present.
 * - everything else is `opaque`, kept as it is.
 */
export const classify = (row: Record<string, unknown>, options?: { readonly legacy?: boolean }): RowKind => {
  const type = row.type
  if (type === "session") return typeof row.id === "string" ? "header" : "opaque"
  if (type === "leaf") {
    return isNonBlank(row.id) && Object.hasOwn(row, "parentId") && isParentRef(row.parentId) &&
        Object.hasOwn(row, "targetId") && isParentRef(row.targetId) &&
        (!Object.hasOwn(row, "appendParentId") || isParentRef(row.appendParentId))
      ? "leaf"
      : "opaque"
  }
  if (!isCanonicalType(type)) return "opaque"
  // a legacy (version < 2) file has no entry ids yet: the v1 -> v2 migration mints them
  if (!isNonBlank(row.id) && !(options?.legacy === true && !Object.hasOwn(row, "id"))) return "opaque"
  if (Object.hasOwn(row, "parentId") && !isParentRef(row.parentId)) return "opaque"
  if (Object.hasOwn(row, "timestamp") && typeof row.timestamp !== "string") return "opaque"
  if (type === "message") {
    const message = row.message
    if (!isRecord(message) || !isNonBlank(message.role)) return "opaque"
  }
  return "entry"
}

/**
 * Why a row of a canonical type is not an entry (and so is kept as an opaque row, out of the tree
 * and the context), or `undefined` when it is one or its type is not canonical. The same checks
 * as {@link classify}, worded for a report.
 */
export const malformedReason = (
  row: Readonly<Record<string, unknown>>,
  options?: { readonly legacy?: boolean }
): string | undefined => {
  const type = row.type
  if (!isCanonicalType(type)) return undefined
  if (!isNonBlank(row.id) && !(options?.legacy === true && !Object.hasOwn(row, "id"))) {
    return Object.hasOwn(row, "id") ? `its id is ${describeValue(row.id)}` : "it has no id"
  }
  if (Object.hasOwn(row, "parentId") && !isParentRef(row.parentId)) {
    return `its parentId is ${describeValue(row.parentId)}, not a string or null`
  }
  if (Object.hasOwn(row, "timestamp") && typeof row.timestamp !== "string") {
    return `its timestamp is ${describeValue(row.timestamp)}, not a string`
  }
  if (type === "message") {
    const message = row.message
    if (!isRecord(message)) return `its message is ${describeValue(message)}, not an object`
    if (!isNonBlank(message.role)) return "its message has no role"
  }
  return undefined
}

const describeValue = (value: unknown): string => {
  if (value === undefined) return "missing"
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "string") return value.trim() === "" ? "blank" : "a string"
  return `a ${typeof value}`
}
