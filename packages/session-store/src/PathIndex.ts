/**
 * The path index of a session, for backends: the {@link Summary} of its active path (leaf, path
 * from the last compaction, the settings rows before it, labels, name, corrupt rows), the row
 * table that indexes every row, the id set's hashes and filter, the catch-up over rows appended
 * since, and the view a bounded open answers from. The row stores (`StoreRows`) keep it in memory;
 * the JSONL sidecar index (`@branchlog/store-jsonl`) writes it to disk with its own head and
 * checksums. Pure: no I/O.
 *
 * @since 0.2.0
 */
// named, not `export *`: a bundler that wraps these modules for lazy initialisation (esbuild's CommonJS
// output, the CLI's direct path) then sees which bindings each importer uses and initialises them
export type { Built } from "./internal/index/build.js"
export { kindOf, summarize, Tables } from "./internal/index/build.js"
export type { CaughtUp, LineSpan } from "./internal/index/catchup.js"
export { catchUp } from "./internal/index/catchup.js"
export type { RowRef, Summary, Watermark } from "./internal/index/format.js"
export {
  ENTRY_TYPES,
  isRowRef,
  isSummary,
  KIND_COMPACTION,
  KIND_MODEL,
  KIND_OTHER,
  KIND_THINKING,
  ROW_BYTES,
  TAG,
  TYPE_CODES
} from "./internal/index/format.js"
export {
  FILTER_BITS,
  FILTER_PROBES,
  filterOf,
  hash32,
  hash52,
  hasHash,
  indexOfHash,
  probe,
  probeBits,
  top32
} from "./internal/index/idset.js"
export type { View, ViewRows } from "./internal/index/view.js"
export { assemble, contextOf, sameAnswers } from "./internal/index/view.js"
