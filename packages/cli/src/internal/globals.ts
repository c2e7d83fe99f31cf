/**
 * The global options, accepted anywhere on the command line and taken out before @effect/cli
 * parses the rest: `--verbose`; `--lock-timeout DURATION`, which every transcript lock the
 * command takes waits at most (through the lock options of each acquire); `--no-index`, which
 * keeps read commands from writing a session's sidecar index.
 */
import { TranscriptLock } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** Whether `--verbose` was given (set around the command by `Cli.run`). */
export const verbose: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/** Whether `--no-index` was given: read commands use a valid index but never write one. */
export const noIndex: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

export { type Globals, parseDuration, parseGlobals } from "./argv.js"

/** Runs `effect` with every transcript lock it takes waiting at most `timeoutMs` (unchanged when `undefined`). */
export const withLockTimeout =
  (timeoutMs: number | undefined) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | TranscriptLock.TranscriptLock> =>
    timeoutMs === undefined ? effect : Effect.updateService(effect, TranscriptLock.TranscriptLock, (lock) => ({
      ...lock,
      acquire: (path, options) => lock.acquire(path, { ...options, timeoutMs }),
      withLock: (path, inner, options) => lock.withLock(path, inner, { ...options, timeoutMs })
    }))
