/**
 * The path of a bundle of `entry` (a TypeScript child script of a multi-process test: one file,
 * the workspace's sources through the `@branchlog/source` condition), made once and kept in its
 * package's `node_modules/.cache/branchlog-children`, made again when any of its inputs changed.
 * Run it with plain `node` (no tsx).
 */
export declare const bundledChild: (entry: string) => string
