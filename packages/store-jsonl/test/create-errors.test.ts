/**
 * `SessionManager.create` with `eagerFlush` writes the header at once: a failure of that write is
 * a typed `WriteError` in its signature (it used to be a defect under a `never` error).
 */
import * as MemoryStore from "@branchlog/session-store/MemoryStore"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionStore from "../src/SessionStore.js"

describe("SessionManager.create with eagerFlush", () => {
  it.effect("fails with SessionFileConflictError when rows are already stored at the new session's reference", () =>
    Effect.gen(function*() {
      // the same clock (TestClock at 0) and the same random stream: the same session id, the same reference
      const sameId = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withRandom(effect, Random.make("same"))
      const first = yield* sameId(SessionManager.create("/p", "loc", { eagerFlush: true }))
      const error = yield* Effect.flip(sameId(SessionManager.create("/p", "loc", { eagerFlush: true })))
      expect(error._tag).toBe("SessionFileConflictError")
      expect(first.getSessionId()).toMatch(/^00000000-0000-7/)
    }).pipe(Effect.provide(MemoryStore.layer())))

  it.scoped("fails with a typed FileSystemError when the session folder cannot be made (a file stands there)", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-create-errors-"))),
        (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
      )
      const file = path.join(dir, "not-a-folder")
      fs.writeFileSync(file, "x")
      const error = yield* Effect.flip(SessionManager.create("/p", path.join(file, "sessions"), { eagerFlush: true }))
      expect(error._tag).toBe("FileSystemError")
      // without eagerFlush nothing is written, so nothing fails
      const lazy = yield* SessionManager.create("/p", path.join(file, "sessions"))
      expect(lazy.pendingCount()).toBe(1)
    }).pipe(Effect.provide(SessionStore.layerNode)))
})
