/**
 * `@branchlog/store-jsonl/testing`: the in-memory filesystem, the layers of the file-level
 * services, harnesses that run one behavioural suite against real files and the in-memory volume,
 * child processes for multi-process tests (for this package's suites and for users' own tests),
 * and the JSONL backends of the store conformance suite.
 *
 * @since 0.2.0
 */

/** The in-memory volume, its tag and layers. */
export * as MemoryFileSystem from "./MemoryFileSystem.js"

/** Child processes for multi-process tests: start one through tsx, wait for what it prints. */
export * as Children from "./testing/Children.js"

/** One harness per backend: the services' layer plus an "external process" editing files. */
export * as Harness from "./testing/Harness.js"

export {
  /** The JSONL file backend over real temporary folders (`jsonl`), for `Conformance.suite`. */
  jsonl,
  /** The JSONL file backend over one in-memory volume (`jsonl-memfs`), for `Conformance.suite`. */
  jsonlMemfs
} from "./testing/conformance/fileBackends.js"

export {
  /** Every file-level service over one in-memory volume, plus the volume. */
  layerMemory,
  /** Every file-level service over node:fs (real files). */
  layerNode,
  /** Every file-level service over the `MemoryFileSystem` in context. */
  layerServicesMemory
} from "./SessionStore.js"
