/**
 * The command line read without any library (the executable's `bin.ts` bundles this module into
 * itself): the global options (`--verbose`, `--lock-timeout DURATION`, `--no-index`), accepted
 * anywhere and taken out before @effect/cli parses the rest, and the command lines the executable
 * runs directly, without building @effect/cli's command tree (`direct.ts`).
 */

/** What the global options asked for, the other arguments, and a usage error if one was malformed. */
export interface Globals {
  readonly args: ReadonlyArray<string>
  readonly verbose: boolean
  readonly noIndex: boolean
  readonly lockTimeoutMs: number | undefined
  readonly error: string | undefined
}

const units: Record<string, number> = {
  "": 1,
  ms: 1,
  millis: 1,
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000
}

/** Milliseconds of `500ms`, `5s`, `2m`, `1h`, `1.5 s` (a bare number is milliseconds), or `undefined`. */
export const parseDuration = (text: string): number | undefined => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text)
  if (match === null) return undefined
  const unit = units[match[2]!.toLowerCase()]
  return unit === undefined ? undefined : Math.round(Number(match[1]) * unit)
}

/** Takes the global options out of `args` (the arguments after node and the script). */
export const parseGlobals = (args: ReadonlyArray<string>): Globals => {
  const rest: Array<string> = []
  let verbose = false
  let noIndex = false
  let lockTimeoutMs: number | undefined
  let error: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--verbose") {
      verbose = true
    } else if (arg === "--no-index") {
      noIndex = true
    } else if (arg === "--lock-timeout" || arg.startsWith("--lock-timeout=")) {
      const value = arg === "--lock-timeout" ? args[++i] : arg.slice("--lock-timeout=".length)
      const ms = value === undefined ? undefined : parseDuration(value)
      if (ms === undefined) {
        error ??= value === undefined
          ? "--lock-timeout needs a duration (e.g. 500ms, 5s, 2m; a bare number is milliseconds)"
          : `--lock-timeout: not a duration: ${
            JSON.stringify(value)
          } (e.g. 500ms, 5s, 2m; a bare number is milliseconds)`
      } else {
        lockTimeoutMs = ms
      }
    } else {
      rest.push(arg)
    }
  }
  return { args: rest, verbose, noIndex, lockTimeoutMs, error }
}

/** An `append` command line the executable runs directly: `append FILE [--json] [--full]` and global options. */
export interface DirectAppend {
  readonly command: "append"
  readonly globals: Globals
  readonly file: string
  readonly json: boolean
  readonly full: boolean
}

/** What @effect/cli takes as the value of a boolean flag when it follows it (`--json yes`). */
const booleanWords = new Set(["true", "1", "y", "yes", "on", "false", "0", "n", "no", "off"])

/** The schemes of the stores other than JSONL files (their drivers load on the full path only). */
const schemes = ["sqlite:", "postgres://", "postgresql://"]

/**
 * The direct form of `args` (the arguments after node and the script) when it is a plain `append`
 * line on JSONL files, else `undefined`: anything else (help, a flag @effect/cli would read
 * otherwise, a value after a flag, a flag twice, a malformed global option, a FILE that looks like a
 * flag, a store's scheme on the line or in `defaultStore`, `BRANCHLOG_STORE`) goes the full way,
 * which answers it as it always has.
 */
export const directAppend = (
  args: ReadonlyArray<string>,
  defaultStore: string | undefined = undefined
): DirectAppend | undefined => {
  if (!args.includes("append")) return undefined
  if ([...args, defaultStore ?? ""].some((word) => schemes.some((scheme) => word.includes(scheme)))) return undefined
  const globals = parseGlobals(args)
  if (globals.error !== undefined || globals.args[0] !== "append") return undefined
  let file: string | undefined
  let json = false
  let full = false
  for (const arg of globals.args.slice(1)) {
    if (arg === "--json" && !json) json = true
    else if (arg === "--full" && !full) full = true
    else if (arg.startsWith("-") || file !== undefined || booleanWords.has(arg.toLowerCase())) return undefined
    else file = arg
  }
  return file === undefined ? undefined : { command: "append", globals, file, json, full }
}

/**
 * The subcommand `args` (the arguments without the global options) names: its first word, the
 * values of @effect/cli's own options before it not counted (`--log-level info ls`).
 */
export const subcommandWord = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--log-level" || args[i] === "--completions") i++
    else if (!args[i]!.startsWith("-")) return args[i]
  }
  return undefined
}

/** The commands the executable's read bundle holds (`readMain.ts`). */
const readCommands = new Set(["info", "tree", "context"])

/**
 * Whether `args` is a line for the read bundle: `info`, `tree` or `context` on files (no store's
 * scheme on the line or in `defaultStore`), not asking for completions or the wizard (which are
 * about every command). Its own help (`info --help`) is in the bundle.
 */
export const isReadLine = (args: ReadonlyArray<string>, defaultStore: string | undefined = undefined): boolean => {
  const globals = parseGlobals(args)
  const word = subcommandWord(globals.args)
  return word !== undefined && readCommands.has(word) && globals.args[0] === word &&
    !args.some((arg) => arg === "--completions" || arg === "--wizard" || arg === "--") &&
    ![...args, defaultStore ?? ""].some((arg) => schemes.some((scheme) => arg.includes(scheme)))
}
