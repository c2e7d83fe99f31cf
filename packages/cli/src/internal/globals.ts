/**
 * The global options, accepted anywhere on the command line and taken out before @effect/cli
 * parses the rest: `--verbose`; `--lock-timeout DURATION`, which every transcript lock the
 * command takes waits at most (through the lock options of each acquire); `--no-index`, which
 * keeps read commands from writing a session's sidecar index.
 */
import { TranscriptLock } from "@branchlog/session-store"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** Whether `--verbose` was given (set around the command by `Cli.run`). */
export const verbose: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/** Whether `--no-index` was given: read commands use a valid index but never write one. */
export const noIndex: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

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

/** Runs `effect` with every transcript lock it takes waiting at most `timeoutMs` (unchanged when `undefined`). */
export const withLockTimeout =
  (timeoutMs: number | undefined) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | TranscriptLock.TranscriptLock> =>
    timeoutMs === undefined ? effect : Effect.updateService(effect, TranscriptLock.TranscriptLock, (lock) => ({
      ...lock,
      acquire: (path, options) => lock.acquire(path, { ...options, timeoutMs }),
      withLock: (path, inner, options) => lock.withLock(path, inner, { ...options, timeoutMs })
    }))
