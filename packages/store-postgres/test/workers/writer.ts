// A writer process standing for one host (its own store, its own pool); run with
// `node --conditions=@branchlog/source --import tsx`.
// usage: writer.ts <ref> <name> <count>
//   opens the session through its own SessionManager (PostgreSQL store) and appends <count> custom
//   entries {writer, seq}, printing "ack <id>" after each append returned; a write that fails (a
//   stale cursor after the server came back, the store's retries exhausted) is tried again, counted;
//   prints "done <retries>" at the end.
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as Effect from "effect/Effect"
import * as PostgresStore from "../../src/PostgresStore.js"

const [ref = "", name = "w", countText = "100"] = process.argv.slice(2)
const count = Number(countText)

const program = Effect.gen(function*() {
  const sm = yield* SessionManager.open(ref, undefined, undefined, { eagerFlush: true, lock: { timeoutMs: 120_000 } })
  process.stdout.write("ready\n")
  let retries = 0
  for (let seq = 0; seq < count; seq++) {
    for (;;) {
      const result = yield* Effect.either(sm.appendCustomEntry("writer", { writer: name, seq }))
      if (result._tag === "Right") {
        process.stdout.write(`ack ${result.right}\n`)
        break
      }
      retries += 1
      if (retries > 200) return yield* Effect.fail(result.left)
      process.stderr.write(`retry ${seq}: ${result.left.message}\n`)
      yield* Effect.sleep("100 millis")
    }
  }
  process.stdout.write(`done ${retries}\n`)
})

Effect.runPromise(program.pipe(Effect.provide(PostgresStore.layer({ maxConnections: 2 })))).then(
  () => process.exit(0),
  (error) => {
    console.error(String(error?.message ?? error))
    process.exit(1)
  }
)
