/**
 * The exclusive hold of a session against every process: a lease row in the `holds` table
 * (session, token, pid, host, time), taken and given back in short IMMEDIATE transactions, NOT a
 * transaction spanning the hold. So a hold may run any user effect for as long as it likes:
 * each write inside it commits at once (durable when acknowledged), other sessions of the same
 * database stay writable meanwhile, and readers never wait. A holder that died (its pid gone on
 * this host, or a token of this process no longer live) is taken over; one of another host only
 * after `staleMs`. In one process, holders of one session queue on a semaphore first (no polling)
 * and nesting on one fiber is re-entrant; across processes a waiter polls the lease every few
 * milliseconds until `timeoutMs` (then `LockTimeoutError`, naming the holder).
 */
import { LockTimeoutError } from "@branchlog/session-store/StoreError"
import type { HoldOptions } from "@branchlog/session-store/TranscriptStore"
import type { BackendFailureError } from "@branchlog/session-store/TranscriptStoreError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { randomUUID } from "node:crypto"
import * as os from "node:os"
import type { Db, Holder } from "./database.js"

/** Tokens of the holds this process has now. */
const live = new Set<string>()
const semaphores = new Map<string, Effect.Semaphore>()
const holding = FiberRef.unsafeMake<ReadonlySet<string>>(new Set())
const host = os.hostname()

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** `true` when a holder can be taken over. */
const staleness = (holder: Holder, now: number, staleMs: number): boolean => {
  if (holder.host === host) return holder.pid === process.pid ? !live.has(holder.token) : !alive(holder.pid)
  return now - holder.acquired_ms > staleMs
}

/** Runs `use` holding session `id` of `db` (`key`: its reference string). */
export const withHold = <A, E, R>(
  db: Db,
  key: string,
  id: string,
  use: Effect.Effect<A, E, R>,
  options: HoldOptions | undefined,
  attempt: <B>(operation: string, f: () => B) => Effect.Effect<B, BackendFailureError>
) =>
  Effect.flatMap(FiberRef.get(holding), (keys) => {
    if (keys.has(key)) return use
    let semaphore = semaphores.get(key)
    if (semaphore === undefined) {
      semaphore = Effect.unsafeMakeSemaphore(1)
      semaphores.set(key, semaphore)
    }
    const timeoutMs = options?.timeoutMs ?? 60_000
    const staleMs = options?.staleMs ?? 30 * 60_000
    const retryMs = options?.retryMs ?? 5
    const acquire = Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const token = randomUUID()
      let delay = 1
      for (;;) {
        const now = yield* Clock.currentTimeMillis
        const holder = yield* attempt("hold", () =>
          db.acquire(id, { token, pid: process.pid, host, acquired_ms: now }, (h) => staleness(h, now, staleMs)))
        if (holder === undefined) {
          live.add(token)
          return token
        }
        if (now - started >= timeoutMs) {
          return yield* new LockTimeoutError({
            path: db.path,
            lockPath: `${key} (holds table)`,
            holderPid: holder.pid,
            holderHostname: holder.host,
            holderAlive: holder.host === host ? alive(holder.pid) : undefined,
            ageMs: now - holder.acquired_ms,
            timeoutMs,
            staleReasons: []
          })
        }
        yield* Effect.sleep(Math.min(delay, retryMs))
        delay *= 2
      }
    })
    const release = (token: string) =>
      Effect.sync(() => {
        live.delete(token)
        if (!db.handle.open) {
          return
        }
        try {
          db.release(id, token)
        } catch {
          try {
            db.releaseOnly(id, token)
          } catch {
            // the lease of a process that goes on is taken over as stale once its token is not live
          }
        }
      })
    return semaphore.withPermits(1)(
      Effect.acquireUseRelease(acquire, () =>
        Effect.locally(use, holding, new Set([...keys, key])), release)
    )
  })
