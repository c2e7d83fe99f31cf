/**
 * Rows reduced to what the reducer and the diagnostics read of them, for a diagnosis that folds a
 * session row by row and keeps no entry's content: an entry keeps its type, id, parent, append
 * mode and the fields its type's checks read (a label's target, label and time, a context edit's
 * target and whether its replacement is valid, a compaction's kept id, a name); an opaque row its
 * type, id and parent; a corrupt row its reason, not its text. Line numbers and offsets stay.
 */
import type { Entry } from "../Entry.js"
import type { ParsedLine } from "../Line.js"
import { isEffectiveEdit } from "../SessionContext.js"
import { canonicalEntryTypes } from "./entryTypes.js"

/** The types whose reduced entries keep more than their type, id and parent. */
const special = new Set<string>(["label", "context_edit", "compaction", "session_info"])

/** One string per entry type, shared by every reduced entry (a parsed row holds its own copy). */
const typeNames = new Map<string, string>(canonicalEntryTypes.map((type) => [type, type]))

const pick = (from: Readonly<Record<string, unknown>>, into: Record<string, unknown>, key: string): void => {
  if (Object.hasOwn(from, key)) into[key] = from[key]
}

/** The entry with only the fields a fold and a diagnosis read; `canonical` gives the id string already held for an id. */
export const entry = (full: Entry, canonical: (id: string) => string | undefined): Entry => {
  const from = full as unknown as Readonly<Record<string, unknown>>
  const type = typeNames.get(full.type) ?? full.type
  const hasParent = Object.hasOwn(from, "parentId")
  const parentId = typeof from.parentId === "string" ? canonical(from.parentId) ?? from.parentId : from.parentId
  // the common row as one literal: its fields in the object, not in a separate store of properties
  if (!special.has(type) && !Object.hasOwn(from, "appendMode")) {
    return (hasParent ? { type, id: full.id, parentId } : { type, id: full.id }) as unknown as Entry
  }
  const out: Record<string, unknown> = { type, id: full.id }
  if (hasParent) out.parentId = parentId
  if (Object.hasOwn(from, "appendMode")) out.appendMode = from.appendMode === "side" ? "side" : from.appendMode
  switch (full.type) {
    case "label":
      pick(from, out, "targetId")
      pick(from, out, "label")
      pick(from, out, "timestamp")
      break
    case "context_edit":
      pick(from, out, "targetId")
      // only whether it is a valid replacement is read: a valid one becomes `null`, another is left out
      if (isEffectiveEdit(full)) out.replacement = null
      break
    case "compaction":
      pick(from, out, "firstKeptEntryId")
      break
    case "session_info":
      pick(from, out, "name")
      break
  }
  return out as unknown as Entry
}

/** A parsed line reduced (see the module's note); `canonical` as for {@link entry}. */
export const line = (parsed: ParsedLine, canonical: (id: string) => string | undefined): ParsedLine => {
  switch (parsed._tag) {
    case "Entry":
      return { _tag: "Entry", entry: entry(parsed.entry, canonical), line: parsed.line, offset: parsed.offset }
    case "Opaque": {
      const value: Record<string, unknown> = {}
      pick(parsed.value, value, "type")
      pick(parsed.value, value, "id")
      pick(parsed.value, value, "parentId")
      return { _tag: "Opaque", value, raw: "", line: parsed.line, offset: parsed.offset }
    }
    case "Corrupt":
      return { _tag: "Corrupt", raw: "", reason: parsed.reason, line: parsed.line, offset: parsed.offset }
    case "Blank":
      return { _tag: "Blank", raw: "", line: parsed.line, offset: parsed.offset }
    default:
      return parsed
  }
}
