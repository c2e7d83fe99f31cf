/**
 * An exclusive cross-process lock per transcript: a sidecar `<file>.lock` created exclusively,
 * holding `{pid, hostname, createdAt, starttime, maxHoldMs, token}`. Held in a `Scope`, released
 * by its finaliser (remove-if-unchanged) and synchronously on exit / SIGINT / SIGTERM; re-entrant
 * within one owner (fiber); in-process writers to one path queue on a per-path gate first. Stale
 * holders (dead or recycled pid, malformed after a grace period, orphaned by this pid, a live pid
 * that cannot be told from a recycled one once older than staleMs and its maxHoldMs) are taken
 * over by renaming the unchanged lock file away, never by a blind delete. The lock is keyed on
 * the resolved file (a symlink and its target share one lock). A symlink at the lock path (never
 * made by a lock holder) is moved away at once; a directory, FIFO, socket or device there fails
 * at once with `LockUnusableError` (it is never opened, never removed).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import type { Backend, Gate, HeldLock } from "./internal/backend.js"
import { FileBackend } from "./internal/backend.js"
import * as LockFile from "./internal/lockFile.js"
import * as NodeBackend from "./internal/nodeBackend.js"
import type { MemoryFileSystem } from "./MemoryFileSystem.js"
import { backendLayer } from "./MemoryFileSystem.js"
import type { FileSystemError } from "./StoreError.js"
import { LockTimeoutError, LockUnusableError } from "./StoreError.js"

/** The payload of a lock file. */
export type LockPayload = LockFile.LockPayload

/** Why a holder looks stale (`too-old` and `hold-exceeded` are report-only while its pid is alive). */
export type StaleReason = LockFile.StaleReason

/** What is known about the holder of a lock file. */
export type HolderInfo = Omit<LockFile.HolderInfo, "content" | "symlink">

/** Options of `acquire`. */
export interface LockOptions {
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
}

/** The TranscriptLock service tag. */
export class TranscriptLock extends Context.Tag("@branchlog/session-store/TranscriptLock")<
  TranscriptLock,
  TranscriptLockShape
>() {}

/** Defaults of `LockOptions`. */
export const defaults = {
  timeoutMs: 60_000,
  staleMs: 30 * 60_000,
  maxHoldMs: 5 * 60_000,
  retryMs: 50
} as const

interface Resolved {
  readonly timeoutMs: number
  readonly staleMs: number
  readonly maxHoldMs: number
  readonly retryMs: number
  readonly graceMs: number
}

const resolveOptions = (options: LockOptions = {}): Resolved => {
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs
  const staleMs = options.staleMs ?? defaults.staleMs
  return {
    timeoutMs,
    staleMs,
    maxHoldMs: options.maxHoldMs ?? defaults.maxHoldMs,
    retryMs: Math.max(1, options.retryMs ?? defaults.retryMs),
    graceMs: options.graceMs ?? Math.min(staleMs, timeoutMs < 30_000 ? 5_000 : 30_000)
  }
}

const lockPathOf = (backend: Backend, path: string): string => `${backend.canonical(path)}.lock`

/** Builds the service over the primitive backend in context. */
export const make: Effect.Effect<TranscriptLockShape, never, FileBackend> = Effect.gen(function*() {
  const backend = yield* FileBackend
  const registry = backend.locks
  const starttime = backend.starttime(backend.pid)

  /** Judges what is at the lock path; never opens anything but a regular file (a FIFO would block). */
  const inspectFile = (path: string, lockPath: string, options: Resolved) =>
    Effect.gen(function*() {
      const kind = yield* backend.lstat(lockPath)
      if (Option.isNone(kind)) return Option.none<LockFile.HolderInfo>()
      const now = yield* Clock.currentTimeMillis
      if (kind.value.kind === "symlink") {
        // a lock holder only ever creates a regular file: a link there (dangling or not) is debris
        return Option.some<LockFile.HolderInfo>({
          lockPath,
          payload: undefined,
          pid: undefined,
          hostname: undefined,
          alive: undefined,
          ageMs: now - Number(kind.value.mtimeNs / 1_000_000n),
          reasons: ["not-a-file"],
          takeover: true,
          content: { bytes: new Uint8Array(0), ino: kind.value.ino, mtimeNs: kind.value.mtimeNs },
          symlink: true
        })
      }
      if (kind.value.kind !== "file") {
        return yield* new LockUnusableError({ path: backend.resolve(path), lockPath, kind: kind.value.kind })
      }
      const content = yield* backend.readFile(lockPath)
      if (Option.isNone(content)) return Option.none<LockFile.HolderInfo>()
      return Option.some(LockFile.judge(backend, lockPath, content.value, now, options, registry.held.has(lockPath)))
    })

  const timeoutError = (path: string, lockPath: string, options: Resolved) =>
    inspectFile(path, lockPath, options).pipe(
      Effect.map((info) => {
        const holder = Option.getOrUndefined(info)
        return new LockTimeoutError({
          path,
          lockPath,
          timeoutMs: options.timeoutMs,
          staleReasons: holder?.reasons ?? [],
          ...(holder?.pid === undefined ? {} : { holderPid: holder.pid }),
          ...(holder?.hostname === undefined ? {} : { holderHostname: holder.hostname }),
          ...(holder?.alive === undefined ? {} : { holderAlive: holder.alive }),
          ...(holder === undefined ? {} : { ageMs: Math.max(0, Math.round(holder.ageMs)) })
        })
      }),
      Effect.flatMap(Effect.fail)
    )

  /** Removes the lock file only if it still holds our token. */
  const removeIfOurs = (lockPath: string, token: string) =>
    backend.readFile(lockPath).pipe(
      Effect.flatMap((content) =>
        Option.isSome(content) && LockFile.tokenOf(content.value.bytes) === token
          ? backend.remove(lockPath)
          : Effect.void
      ),
      Effect.ignore
    )

  const releaseOne = (held: HeldLock) =>
    Effect.suspend(() => {
      held.count -= 1
      if (held.count > 0) return Effect.void
      registry.held.delete(held.lockPath)
      backend.unregisterHeld(held.lockPath)
      return removeIfOurs(held.lockPath, held.token)
    })

  /** Take-over: rename the unchanged stale file to a unique name, check what we moved, then drop it. */
  const takeOver = (info: LockFile.HolderInfo) => info.symlink === true ? takeOverLink(info) : takeOverFile(info)

  /** A symlink at the lock path: move the link itself (never its target) away if it is still the same link. */
  const takeOverLink = (info: LockFile.HolderInfo) =>
    Effect.gen(function*() {
      const again = yield* backend.lstat(info.lockPath)
      if (Option.isNone(again) || again.value.kind !== "symlink" || again.value.ino !== info.content.ino) return
      const aside = `${info.lockPath}.stale-${randomUUID().slice(0, 8)}`
      const moved = yield* backend.rename(info.lockPath, aside).pipe(
        Effect.as(true),
        Effect.catchTag("FileNotFoundError", () => Effect.succeed(false))
      )
      if (!moved) return
      const movedInfo = yield* backend.lstat(aside)
      if (Option.isSome(movedInfo) && movedInfo.value.ino !== info.content.ino) {
        yield* backend.link(aside, info.lockPath).pipe(Effect.ignore)
      } else {
        yield* Effect.logInfo(`transcript lock: removed a symlink found at the lock path ${info.lockPath}`)
      }
      yield* backend.remove(aside)
    })

  const takeOverFile = (info: LockFile.HolderInfo) =>
    Effect.gen(function*() {
      const again = yield* backend.readFile(info.lockPath)
      if (Option.isNone(again)) return
      if (again.value.ino !== info.content.ino || !LockFile.sameBytes(again.value.bytes, info.content.bytes)) return
      const aside = `${info.lockPath}.stale-${randomUUID().slice(0, 8)}`
      const moved = yield* backend.rename(info.lockPath, aside).pipe(
        Effect.as(true),
        Effect.catchTag("FileNotFoundError", () => Effect.succeed(false))
      )
      if (!moved) return
      const movedContent = yield* backend.readFile(aside)
      if (Option.isSome(movedContent) && !LockFile.sameBytes(movedContent.value.bytes, info.content.bytes)) {
        // someone replaced the stale file between our check and the rename: give it back
        yield* backend.link(aside, info.lockPath).pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(`transcript lock: could not restore a lock moved by a take-over race: ${error.message}`)
          )
        )
      } else {
        yield* Effect.logInfo(
          `transcript lock: took over a stale lock (${info.reasons.join(",")}) pid=${info.pid ?? "?"} ${info.lockPath}`
        )
      }
      yield* backend.remove(aside)
    })

  /** One exclusive-create attempt; on success the lock is registered and its finaliser added. */
  const tryCreate = (path: string, lockPath: string, options: Resolved) =>
    Effect.uninterruptible(Effect.gen(function*() {
      const attempt = backend.createExclusive(lockPath).pipe(
        Effect.map(Option.some),
        // something is there (EISDIR: a folder, on backends that say so): judged by `inspectFile`
        Effect.catchIf((e) => e.code === "EEXIST" || e.code === "EISDIR", () => Effect.succeed(Option.none()))
      )
      let handle = yield* attempt.pipe(
        Effect.catchIf(
          (e) => e.code === "ENOENT",
          () => Effect.zipRight(backend.makeDirectory(backend.dirname(lockPath)), attempt)
        )
      )
      if (Option.isNone(handle)) return Option.none<LockHandle>()
      const token = randomUUID()
      const now = yield* Clock.currentTimeMillis
      const payload: LockFile.LockPayload = {
        pid: backend.pid,
        hostname: backend.hostname,
        createdAt: new Date(now).toISOString(),
        ...(starttime === undefined ? {} : { starttime }),
        maxHoldMs: options.maxHoldMs,
        token
      }
      yield* handle.value.write(LockFile.encodePayload(payload)).pipe(
        Effect.ensuring(handle.value.close),
        Effect.tapError(() => backend.remove(lockPath).pipe(Effect.ignore))
      )
      handle = Option.none()
      const held: HeldLock = { lockPath, token, count: 1 }
      registry.held.set(lockPath, held)
      backend.registerHeld(lockPath, token)
      yield* Effect.addFinalizer(() => releaseOne(held))
      yield* Effect.locallyScopedWith(registry.owned, (owned: ReadonlySet<string>) => new Set([...owned, lockPath]))
      return Option.some<LockHandle>({ path: backend.resolve(path), lockPath, token, reentrant: false })
    }))

  const enterGate = (lockPath: string, remainingMs: number) =>
    Effect.gen(function*() {
      let gate: Gate | undefined = registry.gates.get(lockPath)
      if (gate === undefined) {
        gate = { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
        registry.gates.set(lockPath, gate)
      }
      const entered = gate
      entered.users += 1
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          entered.users -= 1
          if (entered.users === 0 && registry.gates.get(lockPath) === entered) registry.gates.delete(lockPath)
        })
      )
      const take = entered.semaphore.take(1)
      // alone at the gate (no holder, no waiter): the permit is free, no timer is needed
      const waits = entered.users > 1 && Number.isFinite(remainingMs)
      const got = yield* Effect.uninterruptibleMask((restore) =>
        restore(waits ? Effect.timeoutOption(take, Duration.millis(remainingMs)) : Effect.asSome(take))
          .pipe(
            Effect.tap((taken) =>
              Option.isSome(taken) ? Effect.addFinalizer(() => entered.semaphore.release(1)) : Effect.void
            )
          )
      )
      return Option.isSome(got)
    })

  const acquireFresh = (path: string, lockPath: string, options: Resolved) =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const deadline = start + options.timeoutMs
      const entered = yield* enterGate(lockPath, options.timeoutMs)
      if (!entered) return yield* timeoutError(path, lockPath, options)
      let attemptsAfterDeadline = 0
      let immediate = 0
      while (true) {
        const created = yield* tryCreate(path, lockPath, options)
        if (Option.isSome(created)) return created.value
        const info = yield* inspectFile(path, lockPath, options)
        const now = yield* Clock.currentTimeMillis
        if (Option.isSome(info) && info.value.takeover) yield* takeOver(info.value)
        else if (now >= deadline) return yield* timeoutError(path, lockPath, options)
        // after a take-over (or a lock that vanished) retry at once, unless the time is up; a few
        // times only, then at the retry pace (something that keeps coming back must not spin a CPU)
        if ((Option.isNone(info) || info.value.takeover) && immediate++ < 8) {
          if (now >= deadline && attemptsAfterDeadline++ > 3) return yield* timeoutError(path, lockPath, options)
          continue
        }
        immediate = 0
        yield* Effect.sleep(Duration.millis(Math.min(options.retryMs, deadline - now)))
      }
    })

  const acquire = (path: string, options?: LockOptions) =>
    Effect.gen(function*() {
      const lockPath = lockPathOf(backend, path)
      const owned = yield* FiberRef.get(registry.owned)
      const held = registry.held.get(lockPath)
      if (owned.has(lockPath) && held !== undefined) {
        held.count += 1
        yield* Effect.addFinalizer(() => releaseOne(held))
        return { path: backend.resolve(path), lockPath, token: held.token, reentrant: true } satisfies LockHandle
      }
      return yield* acquireFresh(path, lockPath, resolveOptions(options))
    })

  const withLock = <A, E, R>(path: string, effect: Effect.Effect<A, E, R>, options?: LockOptions) =>
    Effect.acquireUseRelease(
      Scope.make(),
      (scope) => Effect.zipRight(Scope.extend(acquire(path, options), scope), effect),
      (scope, exit) => Scope.close(scope, exit)
    )

  const inspect = (path: string, options?: LockOptions) =>
    inspectFile(path, lockPathOf(backend, path), resolveOptions(options)).pipe(
      Effect.map(Option.map(({ content: _content, symlink: _symlink, ...info }): HolderInfo => info))
    )

  const isHeld = (path: string) =>
    FiberRef.get(registry.owned).pipe(Effect.map((owned) => {
      const lockPath = lockPathOf(backend, path)
      return owned.has(lockPath) && registry.held.has(lockPath)
    }))

  return { acquire, withLock, inspect, isHeld } satisfies TranscriptLockShape
})

/** The Node layer (node:fs, /proc starttime, exit and signal cleanup). */
export const layer: Layer.Layer<TranscriptLock> = Layer.effect(TranscriptLock, make).pipe(
  Layer.provide(NodeBackend.layer)
)

/** The in-memory layer over the `MemoryFileSystem` in context (its fake process table decides liveness). */
export const layerMemory: Layer.Layer<TranscriptLock, never, MemoryFileSystem> = Layer.effect(TranscriptLock, make)
  .pipe(
    Layer.provide(backendLayer)
  )
