/**
 * A child of the catalog index race test: lists the folder `argv[2]` `argv[3]` times with the
 * catalog index written ("write"), then prints `done N` (N: the sessions of its last listing).
 */
import * as Effect from "effect/Effect"
import * as SessionCatalog from "../../src/SessionCatalog.js"
import * as SessionStore from "../../src/SessionStore.js"

const [dir, times] = [process.argv[2]!, Number(process.argv[3])]
const program = Effect.gen(function*() {
  let n = 0
  for (let i = 0; i < times; i++) n = (yield* SessionCatalog.list("", dir, undefined, { index: "write" })).length
  return n
})
Effect.runPromise(program.pipe(Effect.provide(SessionStore.layerNode))).then(
  (n) => process.stdout.write(`done ${n}\n`),
  (e) => {
    process.stderr.write(`failed ${String(e)}\n`)
    process.exit(1)
  }
)
