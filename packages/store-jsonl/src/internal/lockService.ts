/**
 * The transcript lock's implementation (`TranscriptLock.make`): the in-process gate, the lock
 * file created in one step, the wait and take-over of a contended or stale lock, re-entrancy per
 * owning fiber, and the release that removes the lock file only while it is still ours.
 */
import type { FileSystemError } from "@branchlog/session-store/StoreError"
import { LockTimeoutError, LockUnusableError } from "@branchlog/session-store/StoreError"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import type { HolderInfo, LockError, LockHandle, LockOptions, TranscriptLockShape } from "../TranscriptLock.js"
import type { Backend, HeldLock } from "./backend.js"
import { FileBackend } from "./backend.js"
import * as LockFile from "./lockFile.js"
import * as LockGate from "./lockGate.js"
import * as LockTakeover from "./lockTakeover.js"

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

/** A lock taken: its handle, and the release to run once (the last release of the lock file removes it). */
interface Lease {
  readonly handle: LockHandle
  readonly release: Effect.Effect<void>
}

/** `owned` without `lockPath` (the registry's empty set once nothing is left, so a fiber that owns nothing is as it was). */
const disownedIn =
  (empty: ReadonlySet<string>) => (owned: ReadonlySet<string>, lockPath: string): ReadonlySet<string> => {
    if (!owned.has(lockPath)) return owned
    if (owned.size === 1) return empty
    const rest = new Set(owned)
    rest.delete(lockPath)
    return rest
  }

const clockOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => Context.get(fiber.currentDefaultServices, Clock.Clock)

/** Builds the service over the primitive backend in context. */
export const make: Effect.Effect<TranscriptLockShape, never, FileBackend> = Effect.gen(function*() {
  const backend = yield* FileBackend
  const registry = backend.locks
  const disowned = disownedIn(registry.noneOwned)
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

  /** Lets go of the lock file (if it is still ours) and leaves the gate (the last acquisition's release). */
  const releaseNow = (held: HeldLock): void => {
    registry.held.delete(held.lockPath)
    backend.unregisterHeld(held.lockPath)
    held.created.removeIfOurs()
    LockGate.leave(registry, held.lockPath)
  }

  /** Lets go of one acquisition: the last one removes the lock file (if it is still ours), then leaves the gate. */
  const releaseOne = (held: HeldLock) =>
    Effect.suspend(() => {
      held.count -= 1
      if (held.count > 0) return Effect.void
      releaseNow(held)
      return FiberRef.update(registry.owned, (owned) => disowned(owned, held.lockPath))
    })

  /** Take-over: rename the unchanged stale file to a unique name, check what we moved, then drop it. */
  const takeOver = (info: LockFile.HolderInfo) => LockTakeover.takeOver(backend, info)

  /**
   * One exclusive-create attempt (the payload written in the same step), synchronous: on success
   * the lock is registered and the lease's release lets it go (`owning` makes the fiber its owner).
   */
  const createNow = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    path: string,
    lockPath: string,
    options: Resolved
  ): Either.Either<Lease | undefined, FileSystemError> => {
    const token = randomUUID()
    const payload: LockFile.LockPayload = {
      pid: backend.pid,
      hostname: backend.hostname,
      createdAt: new Date(clockOf(fiber).unsafeCurrentTimeMillis()).toISOString(),
      ...(starttime === undefined ? {} : { starttime }),
      maxHoldMs: options.maxHoldMs,
      token
    }
    const content = LockFile.payloadText(payload)
    const created = backend.createLockFile(lockPath, content)
    if (Either.isLeft(created)) return Either.left(created.left)
    if (created.right === false) return Either.right(undefined)
    const held: HeldLock = { lockPath, token, created: created.right, count: 1 }
    registry.held.set(lockPath, held)
    backend.registerHeld(lockPath, token)
    return Either.right({
      handle: { path: backend.resolve(path), lockPath, token, reentrant: false },
      release: releaseOne(held)
    })
  }

  /** `createNow` as an effect (`None`: the name is taken). */
  const tryCreate = (path: string, lockPath: string, options: Resolved) =>
    Effect.withFiberRuntime<Option.Option<Lease>, FileSystemError>((fiber) =>
      Either.match(createNow(fiber, path, lockPath, options), {
        onLeft: (error) => Effect.fail(error),
        onRight: (lease) => lease === undefined ? Effect.succeed(Option.none()) : Effect.asSome(owning(lease))
      })
    )

  /** Makes the current fiber the owner of a lease just taken. */
  const owning = (lease: Lease): Effect.Effect<Lease> =>
    Effect.as(FiberRef.update(registry.owned, (owned) => new Set(owned).add(lease.handle.lockPath)), lease)

  /** In the gate: create the lock file, else wait for or take over its holder (the gate is left on failure). */
  const inGate = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    path: string,
    lockPath: string,
    options: Resolved,
    deadline: number,
    restore: LockGate.Restore
  ): Effect.Effect<Lease, LockError> => {
    const created = createNow(fiber, path, lockPath, options)
    if (Either.isRight(created) && created.right !== undefined) return owning(created.right)
    return (Either.isLeft(created) ? Effect.fail(created.left) : contended(path, lockPath, options, deadline, restore))
      .pipe(Effect.onError(() => Effect.sync(() => LockGate.leave(registry, lockPath))))
  }

  /** The gate (at once when free: the common case takes gate and file in one step), then the file. */
  const acquireFresh = (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    path: string,
    lockPath: string,
    options: Resolved,
    restore: LockGate.Restore
  ): Effect.Effect<Lease, LockError> => {
    const deadline = clockOf(fiber).unsafeCurrentTimeMillis() + options.timeoutMs
    if (LockGate.tryEnter(registry, lockPath)) return inGate(fiber, path, lockPath, options, deadline, restore)
    return Effect.flatMap(
      LockGate.enter(registry, lockPath, options.timeoutMs, restore),
      (entered) =>
        entered ? inGate(fiber, path, lockPath, options, deadline, restore) : timeoutError(path, lockPath, options)
    )
  }

  /** Someone's lock file is in the way: take it over if stale, else retry at the retry pace until the deadline. */
  const contended = (
    path: string,
    lockPath: string,
    options: Resolved,
    deadline: number,
    restore: LockGate.Restore
  ): Effect.Effect<Lease, LockError> =>
    Effect.gen(function*() {
      let attemptsAfterDeadline = 0
      let immediate = 0
      while (true) {
        const info = yield* inspectFile(path, lockPath, options)
        const now = yield* Clock.currentTimeMillis
        if (Option.isSome(info) && info.value.takeover) yield* takeOver(info.value)
        else if (now >= deadline) return yield* timeoutError(path, lockPath, options)
        // after a take-over (or a lock that vanished) retry at once, unless the time is up; a few
        // times only, then at the retry pace (something that keeps coming back must not spin a CPU)
        if ((Option.isNone(info) || info.value.takeover) && immediate++ < 8) {
          if (now >= deadline && attemptsAfterDeadline++ > 3) return yield* timeoutError(path, lockPath, options)
        } else {
          immediate = 0
          yield* restore(Effect.sleep(Duration.millis(Math.min(options.retryMs, deadline - now))))
        }
        const created = yield* tryCreate(path, lockPath, options)
        if (Option.isSome(created)) return created.value
      }
    })

  /**
   * Takes the lock (re-entrant on the fiber that owns it) and gives the release to run; to be run
   * uninterruptibly (`restore` makes the waits interruptible: nothing is held while waiting).
   */
  const lease = (
    path: string,
    options: LockOptions | undefined,
    restore: LockGate.Restore
  ): Effect.Effect<Lease, LockError> =>
    Effect.withFiberRuntime((fiber) => {
      const lockPath = lockPathOf(backend, path)
      const held = registry.held.get(lockPath)
      if (held !== undefined && fiber.getFiberRef(registry.owned).has(lockPath)) {
        held.count += 1
        return Effect.succeed<Lease>({
          handle: { path: backend.resolve(path), lockPath, token: held.token, reentrant: true },
          release: releaseOne(held)
        })
      }
      return acquireFresh(fiber, path, lockPath, resolveOptions(options), restore)
    })

  const acquire = (path: string, options?: LockOptions) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        lease(path, options, restore),
        (taken) => Effect.as(Effect.addFinalizer(() => taken.release), taken.handle)
      )
    )

  // already uninterruptible here: the release follows the effect's exit directly (no second mask)
  const withLock = <A, E, R>(path: string, effect: Effect.Effect<A, E, R>, options?: LockOptions) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(lease(path, options, restore), (taken) =>
        Effect.matchCauseEffect(restore(effect), {
          onFailure: (cause) => Effect.zipRight(taken.release, Effect.failCause(cause)),
          onSuccess: (a) => Effect.as(taken.release, a)
        }))
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

  // the gate entered and the file created in one synchronous step; the fiber never becomes the
  // owner (its FiberRef is untouched): the caller lets go before anything else can run
  const unsafeTryLock = (fiber: Fiber.RuntimeFiber<unknown, unknown>, path: string, options?: LockOptions) => {
    const lockPath = lockPathOf(backend, path)
    if (registry.held.has(lockPath) || !LockGate.tryEnter(registry, lockPath)) return undefined
    const created = createNow(fiber, path, lockPath, resolveOptions(options))
    if (Either.isLeft(created) || created.right === undefined) {
      LockGate.leave(registry, lockPath)
      return undefined
    }
    const held = registry.held.get(lockPath)!
    let released = false
    return () => {
      if (released) return
      released = true
      held.count -= 1
      if (held.count === 0) releaseNow(held)
    }
  }

  return { acquire, withLock, inspect, isHeld, unsafeTryLock } satisfies TranscriptLockShape
})
