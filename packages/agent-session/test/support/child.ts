/**
 * A second process writing to a session while the agent streams: opens the file with the
 * store's SessionManager and appends one custom message. Usage: child.ts <file> <text>
 */
import { IdSource, SessionManager } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const [file, text] = process.argv.slice(2)

const program = Effect.gen(function*() {
  const sm = yield* SessionManager.open(file!)
  const id = yield* sm.appendCustomMessageEntry("note", text ?? "from the child", true)
  process.stdout.write(id)
})

Effect.runPromise(program.pipe(Effect.provide(Layer.merge(SessionStore.layerNode, IdSource.deterministic(99))))).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String(error))
    process.exit(1)
  }
)
