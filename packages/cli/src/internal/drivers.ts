/**
 * The storage backends the command can reach besides JSONL files, each an optional package with a
 * `driver` (session-store's `StoreRouter.Driver`). A backend's package is imported only when the
 * command line or `BRANCHLOG_STORE` names its scheme, so a command on files loads no database
 * driver; a package that is not installed (or whose native part cannot load) leaves its references
 * to fail with the store's clear "no backend for this kind of reference" error.
 */
import type { StoreRouter } from "@branchlog/session-store"

interface Known {
  readonly schemes: ReadonlyArray<string>
  readonly load: () => Promise<unknown>
}

const known: ReadonlyArray<Known> = [
  { schemes: ["sqlite:"], load: () => import("@branchlog/store-sqlite") },
  { schemes: ["postgres://", "postgresql://"], load: () => import("@branchlog/store-postgres") }
]

const driverOf = (module: unknown): StoreRouter.Driver | undefined => {
  const driver = (module as { readonly driver?: StoreRouter.Driver } | undefined)?.driver
  return driver !== undefined && typeof driver.kind === "string" && Array.isArray(driver.schemes) ? driver : undefined
}

/** The drivers whose schemes appear in `args` or in `defaultStore` (`BRANCHLOG_STORE`). */
export const driversFor = async (
  args: ReadonlyArray<string>,
  defaultStore: string | undefined
): Promise<ReadonlyArray<StoreRouter.Driver>> => {
  const words = defaultStore === undefined ? args : [...args, defaultStore]
  const wanted = known.filter((k) => words.some((word) => k.schemes.some((scheme) => word.includes(scheme))))
  const loaded = await Promise.all(wanted.map((k) => k.load().then(driverOf, () => undefined)))
  return loaded.filter((d): d is StoreRouter.Driver => d !== undefined)
}
