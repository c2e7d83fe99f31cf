// A follower process on another "host": follows a session through SessionFollow over its own
// PostgreSQL store and prints "row <entry id>" for each followed entry; "ready" once it follows.
// usage: follower.ts <ref> <count>   (exits after <count> entries)
import * as SessionFollow from "@branchlog/session-store/SessionFollow"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as PostgresStore from "../../src/PostgresStore.js"

const [ref = "", countText = "1"] = process.argv.slice(2)
const count = Number(countText)

const program = Effect.gen(function*() {
  let seen = 0
  const stream = SessionFollow.follow(ref, { cwd: "/w" }).pipe(
    Stream.filter((row) => row._tag === "Entry"),
    Stream.take(count)
  )
  // the follow is in place once its first load is done: give LISTEN a moment beside it
  yield* Effect.fork(Effect.delay(Effect.sync(() => process.stdout.write("ready\n")), "500 millis"))
  yield* Stream.runForEach(stream, (row) =>
    Effect.sync(() => {
      seen += 1
      process.stdout.write(`row ${row._tag === "Entry" ? row.entry.id : "?"}\n`)
    }))
  process.stdout.write(`done ${seen}\n`)
})

Effect.runPromise(program.pipe(Effect.provide(PostgresStore.layer({ maxConnections: 2 })))).then(
  () => process.exit(0),
  (error) => {
    console.error(String(error?.message ?? error))
    process.exit(1)
  }
)
