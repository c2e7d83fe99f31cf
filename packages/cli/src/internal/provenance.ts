/** Where an imported session came from (its `branchlog.import` entry, see @branchlog/importers), as one line. */
import type { Entry } from "@branchlog/session-core"

/** The customType of the importers' provenance entry. */
const PROVENANCE_TYPE = "branchlog.import"

/** "Imported from FORMAT VERSION: SOURCE (session ID)", or undefined for a session that was not imported. */
export const provenanceLine = (entries: Iterable<Entry.Entry>): string | undefined => {
  for (const entry of entries) {
    if (entry.type !== "custom" || entry.customType !== PROVENANCE_TYPE) continue
    const data = (typeof entry.data === "object" && entry.data !== null ? entry.data : {}) as Record<string, unknown>
    const version = typeof data.formatVersion === "string" ? ` ${data.formatVersion}` : ""
    return `Imported from ${String(data.format ?? "an unknown format")}${version}: ${
      String(data.source ?? "an unknown source")
    }${typeof data.sourceSessionId === "string" ? ` (session ${data.sourceSessionId})` : ""}`
  }
  return undefined
}
