/**
 * Migrations of older session files to the current version (spec §2), as pure functions over
 * the parsed lines. The caller supplies the ids (this package has no randomness) and decides what
 * to do when something changed: the store rewrites the file (with a backup), read-only commands
 * migrate in memory only.
 *
 * - v1 → v2 (linear → tree): every canonical row, in file order, gets a fresh id (unique, and
 *   unlike pi's migration really checked against the ids already given) and the previous one as
 *   its parent. A compaction's legacy `firstKeptEntryIndex` (a position among the parsed rows,
 *   the header at 0, unparseable lines not counted) becomes `firstKeptEntryId` when it names a
 *   canonical row; the legacy field is removed in any case. Rows of other types stay opaque.
 * - v2 → v3: the `hookMessage` role is renamed `custom`.
 * - Version 3 and later (unknown future versions included) are left as they are.
 *
 * Rows are copied, never mutated; keys keep their order, so the output is what the references
 * write.
 *
 * @since 0.1.0
 */
import { CURRENT_SESSION_VERSION, type Entry, type SessionHeader } from "./Entry.js"
import { classify } from "./internal/classify.js"
import type { HeaderLine, ParsedLine } from "./Line.js"

/** Mints a fresh entry id that is not in `taken`. */
export type MintId = (taken: ReadonlySet<string>) => string

/** The result of {@link migrate}. */
export interface MigrationResult {
  readonly lines: ReadonlyArray<ParsedLine>
  /** The version the file declared (absent ⇒ 1); `undefined` without a header. */
  readonly fromVersion: number | undefined
  /** `true` when anything changed: the file should be rewritten to keep the migration. */
  readonly changed: boolean
}

/** The version a header declares: absent ⇒ 1. */
export const versionOf = (header: SessionHeader): number => typeof header.version === "number" ? header.version : 1

/** `true` when a file of this version needs migrating. */
export const needsMigration = (version: number): boolean => version < CURRENT_SESSION_VERSION

const withHeaderVersion = (line: HeaderLine, version: number): HeaderLine => ({
  ...line,
  header: { ...line.header, version }
})

/** The row object of a canonical line of a legacy file (where rows without ids are opaque). */
const legacyEntry = (line: ParsedLine): Record<string, unknown> | undefined => {
  if (line._tag === "Entry") return line.entry as unknown as Record<string, unknown>
  if (line._tag === "Opaque" && classify(line.value as Record<string, unknown>, { legacy: true }) === "entry") {
    return line.value as Record<string, unknown>
  }
  return undefined
}

/** v1 → v2: ids and parents for every canonical row; `firstKeptEntryIndex` resolved. */
const v1ToV2 = (lines: ReadonlyArray<ParsedLine>, mintId: MintId): Array<ParsedLine> => {
  const taken = new Set<string>()
  for (const line of lines) {
    if (line._tag === "LeafControl") taken.add(line.control.id)
    else if (line._tag === "Opaque" && typeof line.value.id === "string" && legacyEntry(line) === undefined) {
      taken.add(line.value.id)
    }
  }
  // positions among parsed rows: the header, entries, opaque rows and leaf controls
  const positions = lines.filter((line) => line._tag !== "Corrupt" && line._tag !== "Blank")
  const migrated = new Map<ParsedLine, Record<string, unknown>>()
  let previousId: string | null = null
  const out: Array<ParsedLine> = []
  for (const line of lines) {
    if (line._tag === "Header") {
      out.push(withHeaderVersion(line, 2))
      continue
    }
    const source = legacyEntry(line)
    if (source === undefined) {
      out.push(line)
      continue
    }
    const id = mintId(taken)
    taken.add(id)
    const entry: Record<string, unknown> = { ...source, id, parentId: previousId }
    migrated.set(line, entry)
    if (entry.type === "compaction" && Object.hasOwn(entry, "firstKeptEntryIndex")) {
      const index = entry.firstKeptEntryIndex
      const target = typeof index === "number" ? positions[index] : undefined
      const targetEntry = target === undefined ? undefined : migrated.get(target) ?? legacyEntry(target)
      if (targetEntry !== undefined) {
        // an earlier target has its new id; a later one still has its old one (usually none)
        if (targetEntry.id === undefined) delete entry.firstKeptEntryId
        else entry.firstKeptEntryId = targetEntry.id
      }
      delete entry.firstKeptEntryIndex
    }
    previousId = id
    out.push({ _tag: "Entry", entry: entry as unknown as Entry, line: line.line, offset: line.offset })
  }
  return out
}

/** v2 → v3: `hookMessage` → `custom`. */
const v2ToV3 = (lines: ReadonlyArray<ParsedLine>): Array<ParsedLine> =>
  lines.map((line) => {
    if (line._tag === "Header") return withHeaderVersion(line, 3)
    if (
      line._tag === "Entry" && line.entry.type === "message" && (line.entry.message.role as string) === "hookMessage"
    ) {
      return { ...line, entry: { ...line.entry, message: { ...line.entry.message, role: "custom" } } as Entry }
    }
    return line
  })

/**
 * Migrates a whole file's parsed lines to the current version. The version is the header's (the
 * first `session` row); a file without one is returned as it is.
 */
export const migrate = (lines: ReadonlyArray<ParsedLine>, mintId: MintId): MigrationResult => {
  const header = lines.find((line): line is HeaderLine => line._tag === "Header")
  if (header === undefined) return { lines, fromVersion: undefined, changed: false }
  const fromVersion = versionOf(header.header)
  if (!needsMigration(fromVersion)) return { lines, fromVersion, changed: false }
  let out: ReadonlyArray<ParsedLine> = lines
  if (fromVersion < 2) out = v1ToV2(out, mintId)
  out = v2ToV3(out)
  return { lines: out, fromVersion, changed: true }
}
