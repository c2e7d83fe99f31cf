/**
 * The in-process gate in front of a lock file: one fiber of the process at a time takes (or
 * waits for) the file lock of a path; the others queue, first come first served, and the gate is
 * handed from one to the next. Free, it costs no semaphore and no timer; a waiter that times out
 * or is interrupted leaves the queue (or, handed the gate meanwhile, hands it on).
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type { Gate, GateWaiter, LockRegistry } from "./backend.js"

/** Runs an effect interruptibly again inside an uninterruptible region (`Effect.uninterruptibleMask`'s `restore`). */
export type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** Enters the gate of `lockPath` if it is free (`false`: someone is in it or waiting; use `enter`). */
export const tryEnter = (registry: LockRegistry, lockPath: string): boolean => {
  if (registry.gates.has(lockPath)) return false
  registry.gates.set(lockPath, { busy: true, waiters: [] })
  return true
}

/** Enters the gate of `lockPath`: at once when it is free, else in turn (`false`: timed out first). Run uninterruptibly. */
export const enter = (
  registry: LockRegistry,
  lockPath: string,
  timeoutMs: number,
  restore: Restore
): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    let gate: Gate | undefined = registry.gates.get(lockPath)
    if (gate === undefined) {
      gate = { busy: false, waiters: [] }
      registry.gates.set(lockPath, gate)
    }
    if (!gate.busy) {
      gate.busy = true
      return Effect.succeed(true)
    }
    const waiter: GateWaiter = { deferred: Deferred.unsafeMake<void>(FiberId.none), handed: false }
    const queue = gate.waiters
    queue.push(waiter)
    const wait = Deferred.await(waiter.deferred)
    return restore(
      Number.isFinite(timeoutMs) ? Effect.timeoutOption(wait, Duration.millis(timeoutMs)) : Effect.asSome(wait)
    ).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          if (exit._tag === "Success" && Option.isSome(exit.value)) return
          // timed out or interrupted: out of the queue, or, if the gate was handed over meanwhile, pass it on
          if (waiter.handed) leave(registry, lockPath)
          else queue.splice(queue.indexOf(waiter), 1)
        })
      ),
      Effect.map(Option.isSome)
    )
  })

/** Hands the gate of `lockPath` to the next waiter, or frees it (and forgets it). */
export const leave = (registry: LockRegistry, lockPath: string): void => {
  const gate = registry.gates.get(lockPath)
  if (gate === undefined) return
  const next = gate.waiters.shift()
  if (next !== undefined) {
    next.handed = true
    Deferred.unsafeDone(next.deferred, Exit.void)
  } else {
    gate.busy = false
    registry.gates.delete(lockPath)
  }
}
