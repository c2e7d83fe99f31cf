/**
 * `fsck` and `repair` as a library: check a session for what is wrong with it (typed findings,
 * each with the line and byte offset it applies to) and mend what can be mended without losing a
 * byte (a backup of the original first, through the store's one destructive
 * rewrite).
 *
 * This is the pure half, for every store: it takes rows and gives findings ({@link diagnose}), a
 * plan by line number ({@link plan}) and the repaired rows ({@link apply}): no I/O, no clock, no
 * randomness, and no use of byte offsets beyond reporting them, so a store of rows runs it as the
 * file backend does. The file half (`check`, `scan`, `repair` of a JSONL file under its lock,
 * streaming its lines through as bytes) is `@branchlog/store-jsonl`'s `Repair`, which re-exports
 * this one.
 *
 * What repair does: corrupt lines, a torn tail and extra headers move to a sidecar
 * (`<file>.removed-<time>.txt`, byte for byte), blank lines are dropped, a late header moves to
 * the top, a missing one is written, a missing final newline is added, a byte-order mark is
 * removed; every other row is kept as its bytes. Orphans, cycles, duplicate ids and the other
 * findings are reported, not changed (no entry is touched).
 *
 * @since 0.1.0
 */
import * as Diagnoses from "./internal/repair/diagnosis.js"
import * as Plans from "./internal/repair/plan.js"

/** A finding session-core's diagnostics do not make: a torn tail, a missing final newline, an oversized line, an old version. */
export type StoreFinding = Diagnoses.StoreFinding

/** One finding: session-core's `Diagnostics.Problem` (a torn tail as `TornTail`), or a {@link StoreFinding}. */
export type Finding = Diagnoses.Finding

/** The `_tag` of a finding (`fsck --json`'s `kind`). */
export type Kind = Diagnoses.Kind

/** What the pure check reads: every line in order (blank lines included), and whether a newline ends the last. */
export type Rows = Diagnoses.Rows

/** What a check found: the rows, their state (migrated in memory), the declared version, the findings. */
export type Diagnosis = Diagnoses.Diagnosis

/** What a streamed check ({@link scan}) found: the findings, the version, and of the rows what a repair plans with. */
export type Scanned = Diagnoses.Scanned

/** Options of {@link diagnose}: the ids of an in-memory migration (default: a hex counter). */
export type DiagnoseOptions = Diagnoses.DiagnoseOptions

/** What becomes of the header in a repair: `InPlace`, `Moved` (from a later line) or `Created`. */
export type HeaderFix = Plans.HeaderFix

/** What a repair does, by line number: the fixes, the header, the lines moved aside and dropped. */
export type Plan = Plans.Plan

/** What a plan does with one row: `keep`, `move` (aside) or `drop`. */
export type Disposition = Plans.Disposition

/** Options of {@link plan}: the header to write when the rows have none. */
export type PlanOptions = Plans.PlanOptions

/** The repaired rows and the rows moved aside. */
export type Applied = Plans.Applied

/** Every finding of the rows, in `fsck`'s order, with the state they fold into (pure). */
export const diagnose = Diagnoses.diagnose

/** The severity of a finding. */
export const severity = Diagnoses.severity

/** One line that says what a finding is (what `fsck` prints). */
export const describe = Diagnoses.describe

/** Where a finding applies (line and byte offset), or `undefined` for the whole session. */
export const position = Diagnoses.position

/** The kinds {@link repair} fixes. */
export const repairableKinds = Diagnoses.repairableKinds

/** `true` for a finding {@link repair} fixes. */
export const isRepairable = Diagnoses.isRepairable

/** The plan of a repair of diagnosed rows (pure). */
export const plan = Plans.plan

/** What a plan does with the row on a line. */
export const disposition = Plans.disposition

/** The store findings of a stream of rows read one by one: a torn tail, a missing final newline, oversized lines, an old version. */
export const storeFindings = Diagnoses.storeFindings

/** The `OversizedLine` finding of a row that stands for a line over the line ceiling, else `undefined`. */
export const oversizedFinding = Diagnoses.oversizedFinding

/** A plan applied to rows: what a store of rows writes, and what it keeps aside (pure). */
export const apply = Plans.apply
