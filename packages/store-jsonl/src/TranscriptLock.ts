/**
 * An exclusive cross-process lock per transcript: a sidecar `<file>.lock` created exclusively,
 * holding `{pid, hostname, createdAt, starttime, maxHoldMs, token}`. Held in a `Scope`, released
 * by its finaliser (remove-if-ours: only while the lock path names the file it created) and
 * synchronously on exit / SIGINT / SIGTERM; re-entrant within one owner (fiber); in-process
 * writers to one path queue on a per-path gate first. Stale holders (dead or recycled pid,
 * malformed after a grace period, orphaned by this pid, a live pid that cannot be told from a
 * recycled one once older than staleMs and its maxHoldMs) are taken over by renaming the unchanged
 * lock file away, never by a blind delete. The lock is keyed on the resolved file (a symlink and
 * its target share one lock). A symlink at the lock path (never made by a lock holder) is moved
 * away at once; a directory, FIFO, socket or device there fails at once with `LockUnusableError`
 * (it is never opened, never removed).
 *
 * @since 0.1.0
 */
import type { FileSystemError, LockTimeoutError, LockUnusableError } from "@branchlog/session-store/StoreError"
import type { HoldOptions } from "@branchlog/session-store/TranscriptStore"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { FileBackend } from "./internal/backend.js"
import type * as LockFile from "./internal/lockFile.js"
import * as LockService from "./internal/lockService.js"
import * as NodeBackend from "./internal/nodeBackend.js"
import type { MemoryFileSystem } from "./MemoryFileSystem.js"
import { backendLayer } from "./MemoryFileSystem.js"

/** The payload of a lock file. */
export type LockPayload = LockFile.LockPayload

/** Why a holder looks stale (`too-old` and `hold-exceeded` are report-only while its pid is alive). */
export type StaleReason = LockFile.StaleReason

/** What is known about the holder of a lock file. */
export type HolderInfo = Omit<LockFile.HolderInfo, "content" | "symlink">

/** Options of `acquire`. */
export interface LockOptions extends HoldOptions {
  /** How long to wait (default 60 s; `Infinity` waits for ever). */
  readonly timeoutMs?: number
  /** Age after which a holder whose liveness cannot be confirmed is stale (default 30 min). */
  readonly staleMs?: number
  /** How long this holder means to keep the lock, recorded in the file (default 5 min). */
  readonly maxHoldMs?: number
  /** Delay between attempts while contended (default 50 ms, constant like OpenClaw). */
  readonly retryMs?: number
  /** Age after which a malformed lock file is stale (default min(staleMs, 30 s), or 5 s for short timeouts). */
  readonly graceMs?: number
}

/** A held lock. */
export interface LockHandle {
  /** The transcript's absolute path. */
  readonly path: string
  readonly lockPath: string
  readonly token: string
  /** `true` when this acquire re-entered a lock its fiber already held. */
  readonly reentrant: boolean
}

/** Errors of taking the lock: timed out, something that is not a lock file in the way, the filesystem. */
export type LockError = LockTimeoutError | LockUnusableError | FileSystemError

/** The service. */
export interface TranscriptLockShape {
  /** Takes the lock for the scope's lifetime. */
  readonly acquire: (path: string, options?: LockOptions) => Effect.Effect<
    LockHandle,
    LockError,
    Scope.Scope
  >
  /** Runs `effect` holding the lock (re-entrant: nesting on one fiber only counts up). */
  readonly withLock: <A, E, R>(
    path: string,
    effect: Effect.Effect<A, E, R>,
    options?: LockOptions
  ) => Effect.Effect<A, E | LockError, R>
  /** Who holds the lock file now, if anyone, and whether it counts as stale. */
  readonly inspect: (
    path: string,
    options?: LockOptions
  ) => Effect.Effect<Option.Option<HolderInfo>, FileSystemError | LockUnusableError>
  /** Whether the current fiber holds the lock of `path`. */
  readonly isHeld: (path: string) => Effect.Effect<boolean>
  /**
   * Optional: takes the lock of `path` at once, synchronously, for `fiber`, when nothing waits:
   * the in-process gate is free (no fiber holds or waits for it, so never re-entrant) and the lock
   * file is created on the first attempt. Gives the release to call, synchronously, before the
   * caller yields (remove-if-still-ours, gate left); `undefined` when it cannot (contended,
   * anything unusual: take the lock with `withLock`). Nothing else may run between the two.
   */
  readonly unsafeTryLock?: (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    path: string,
    options?: LockOptions
  ) => (() => void) | undefined
}

/** The TranscriptLock service tag. */
export class TranscriptLock extends Context.Tag("@branchlog/session-store/TranscriptLock")<
  TranscriptLock,
  TranscriptLockShape
>() {}

/** Defaults of `LockOptions`. */
export const defaults = LockService.defaults

/** Builds the service over the primitive backend in context. */
export const make: Effect.Effect<TranscriptLockShape, never, FileBackend> = LockService.make

/** The Node layer (node:fs, /proc starttime, exit and signal cleanup). */
export const layer: Layer.Layer<TranscriptLock> = Layer.effect(TranscriptLock, make).pipe(
  Layer.provide(NodeBackend.layer)
)

/** The in-memory layer over the `MemoryFileSystem` in context (its fake process table decides liveness). */
export const layerMemory: Layer.Layer<TranscriptLock, never, MemoryFileSystem> = Layer.effect(TranscriptLock, make)
  .pipe(
    Layer.provide(backendLayer)
  )
