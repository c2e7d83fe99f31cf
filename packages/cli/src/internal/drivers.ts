/**
 * The storage backends the command can reach besides JSONL files, each an optional package with a
 * `driver` (session-store's `StoreRouter.Driver`) and, optionally, `unavailable()` (one line saying
 * what to install when the backend's native part cannot load here). A backend's package is imported
 * only when the command line or `BRANCHLOG_STORE` names its scheme, so a command on files loads no
 * database driver. A scheme named whose backend cannot be served is reported, never left to the
 * file store (which would take `sqlite:./s.db` for a path): the command stops with exit code 2.
 */
import type { StoreRouter } from "@branchlog/store-jsonl"

interface Known {
  readonly schemes: ReadonlyArray<string>
  readonly package: string
  readonly load: () => Promise<unknown>
}

const known: ReadonlyArray<Known> = [
  { schemes: ["sqlite:"], package: "@branchlog/store-sqlite", load: () => import("@branchlog/store-sqlite") },
  {
    schemes: ["postgres://", "postgresql://"],
    package: "@branchlog/store-postgres",
    load: () => import("@branchlog/store-postgres")
  }
]

interface Backend {
  readonly driver?: StoreRouter.Driver
  readonly unavailable?: () => string | undefined
}

/** A scheme named on the command line (or in `BRANCHLOG_STORE`) that this process cannot serve. */
export interface Unserved {
  readonly scheme: string
  /** From `BRANCHLOG_STORE` only (not the command line). */
  readonly fromEnvironment: boolean
  /** One line: what is missing and what to install. */
  readonly message: string
}

/** The drivers to give the router, and the schemes named that no driver here can serve. */
export interface Drivers {
  readonly drivers: ReadonlyArray<StoreRouter.Driver>
  readonly unserved: ReadonlyArray<Unserved>
}

const driverOf = (module: unknown): StoreRouter.Driver | undefined => {
  const driver = (module as Backend | undefined)?.driver
  return driver !== undefined && typeof driver.kind === "string" && Array.isArray(driver.schemes) ? driver : undefined
}

const names = (words: ReadonlyArray<string>, k: Known) =>
  words.some((word) => k.schemes.some((scheme) => word.includes(scheme)))

const firstLine = (error: unknown) => String(error instanceof Error ? error.message : error).split("\n")[0]

const loadOne = async (k: Known): Promise<StoreRouter.Driver | string> => {
  let module: unknown
  try {
    module = await k.load()
  } catch (error) {
    return `${k.package} could not be loaded (${firstLine(error)}): install it (npm install ${k.package})`
  }
  const driver = driverOf(module)
  if (driver === undefined) return `${k.package} has no store driver: install a newer version`
  const why = (module as Backend).unavailable?.()
  return why === undefined ? driver : why
}

/** The drivers whose schemes appear in `args` or in `defaultStore` (`BRANCHLOG_STORE`), and those that cannot be served. */
export const driversFor = async (
  args: ReadonlyArray<string>,
  defaultStore: string | undefined
): Promise<Drivers> => {
  const wanted = known.filter((k) => names(args, k) || (defaultStore !== undefined && names([defaultStore], k)))
  const loaded = await Promise.all(wanted.map(loadOne))
  const drivers: Array<StoreRouter.Driver> = []
  const unserved: Array<Unserved> = []
  loaded.forEach((result, i) => {
    const k = wanted[i]!
    if (typeof result !== "string") return drivers.push(result)
    unserved.push({
      scheme: k.schemes[0]!,
      fromEnvironment: !names(args, k),
      message: `${k.schemes[0]} references: ${result}`
    })
  })
  return { drivers, unserved }
}

const informational = new Set(["--help", "-h", "--version", "--completions", "--wizard"])

/**
 * The one line to print (then exit 2) when the command cannot be served: a scheme of the command
 * line, or `BRANCHLOG_STORE`'s unless the command only asks for help or the version.
 */
export const refusal = (args: ReadonlyArray<string>, unserved: ReadonlyArray<Unserved>): string | undefined => {
  const onlyInfo = args.some((arg) => informational.has(arg))
  const blocking = unserved.filter((u) => !u.fromEnvironment || !onlyInfo)
  return blocking.length === 0
    ? undefined
    : blocking.map((u) => `branchlog: ${u.fromEnvironment ? "$BRANCHLOG_STORE: " : ""}${u.message}`).join("\n")
}
