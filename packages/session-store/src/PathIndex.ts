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
export * from "./internal/index/build.js"
export * from "./internal/index/catchup.js"
export * from "./internal/index/format.js"
export * from "./internal/index/view.js"
