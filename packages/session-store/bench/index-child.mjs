// One measured open in a fresh process (for the sidecar index benchmark, bench/index.ts), from the
// built package (`pnpm build` first): prints one JSON line
// {"ms": wall time of the open, "rssBefore": MiB after imports, "maxRss": peak MiB of the process,
//  "bounded": whether the open was bounded, "messages": context messages}.
// usage: node bench/index-child.mjs FILE resume|build|full [runs]   (build: a resume that may write the index)
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SessionManager from "../dist/SessionManager.js"
import * as SessionStore from "../dist/SessionStore.js"

const [file, mode = "resume", runsText = "1"] = process.argv.slice(2)
const runtime = ManagedRuntime.make(SessionStore.layerNode)
const mib = (bytes) => Math.round(bytes / 1048576)
await runtime.runPromise(Effect.void)
const rssBefore = mib(process.memoryUsage().rss)
const times = []
let bounded = false
let messages = 0
for (let i = 0; i < Number(runsText); i++) {
  const t = performance.now()
  const sm = await runtime.runPromise(
    mode === "resume" || mode === "build"
      ? SessionManager.resume(file, undefined, undefined, { readOnly: true, writeIndex: mode === "build" })
      : SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
  )
  messages = sm.buildSessionContext().messages.length
  times.push(performance.now() - t)
  bounded = sm.isBounded()
}
if (process.env.SHOW_TIMES) console.error(times.map((t) => t.toFixed(1)).join(" "))
times.sort((a, b) => a - b)
process.stdout.write(
  JSON.stringify({
    ms: times[Math.floor(times.length / 2)],
    rssBefore,
    maxRss: Math.round(process.resourceUsage().maxRSS / 1024),
    bounded,
    messages
  }) + "\n"
)
await runtime.dispose()
