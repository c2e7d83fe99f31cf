/**
 * A foreign append after a torn last line (pi 0.73.1 appends without a newline first, so its row
 * continues the torn line): a manager that opened the torn file folds what the file now holds,
 * the torn line and the row glued to it as one (corrupt) line, exactly as a full open reads it.
 * Found by the resume differential (tooling/differential/resume.mjs, seed 55).
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { afterAll } from "vitest"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, harnesses } from "../src/testing/Harness.js"

afterAll(cleanupTempRoots)

const user = (text: string): AgentMessage.AgentMessage =>
  ({ role: "user", content: text, timestamp: 1 }) as unknown as AgentMessage.AgentMessage

/** The answers that must match a full open's. */
const answers = (sm: SessionManager.SessionManager, leafId: string | null) => ({
  labels: [...sm.getState().labels].map(([t, l]) => [t, l.label]).sort(),
  name: sm.getSessionName(),
  context: JSON.parse(JSON.stringify(sm.buildSessionContext(leafId)))
})

for (const harness of harnesses) {
  describe(`a foreign append after a torn tail (${harness.name})`, () => {
    for (const how of ["open", "resume"] as const) {
      it.live(`a manager (${how}) folds the glued row as the file holds it`, () => {
        const { dir, ext, layer } = harness.make()
        return Effect.gen(function*() {
          const created = yield* SessionManager.create("/work", dir, { eagerFlush: true })
          const file = created.getSessionFile()!
          const first = yield* created.appendMessage(user("one"))
          yield* created.appendMessage(user("two"))
          // a crash mid-append: the last line is torn
          ext.append(file, `{"type":"message","id":"torn0001","parentId":"${first}","timestamp":"2026-01-01T00:`)
          const options = { eagerFlush: true }
          const sm = how === "open"
            ? yield* SessionManager.open(file, undefined, undefined, options)
            : yield* SessionManager.resume(file, undefined, undefined, options)
          // pi appends a label and a name straight after the torn bytes (no newline first), then a row
          const label = { type: "label", id: "f0000001", parentId: null, timestamp: "2026-01-02T00:00:00.000Z" }
          ext.append(file, JSON.stringify({ ...label, targetId: first, label: "glued" }) + "\n")
          ext.append(
            file,
            JSON.stringify({ type: "session_info", id: "f0000002", parentId: null, timestamp: "x", name: "after" }) +
              "\n"
          )
          yield* sm.appendMessage(user("three"))
          const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
          const leaf = sm.getLeafId()
          expect(full.getSessionName()).toBe("after")
          expect(full.getLabel(first)).toBeUndefined()
          expect(answers(sm, leaf)).toEqual(answers(full, leaf))
        }).pipe(Effect.provide(layer as Layer.Layer<StoreServices>))
      })
    }
  })
}
