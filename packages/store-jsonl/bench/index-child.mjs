// One measured open in a fresh process (for the sidecar index benchmark, bench/index.ts), from the
// built package (`pnpm build` first): prints one JSON line
// {"ms": wall time of the open, "rssBefore": MiB after imports, "maxRss": peak MiB of the process,
//  "bounded": whether the open was bounded, "messages": context messages, "uncovered": bytes of the
//  file past what its index covers (base and update log; -1: no valid index)}.
// usage: node bench/index-child.mjs FILE resume|build|full [runs]   (build: a resume that may write the index)
//        node bench/index-child.mjs FILE pair RUNS OTHER           (resumes of FILE and OTHER interleaved)
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as Format from "../dist/internal/index/format.js"
import * as Log from "../dist/internal/index/log.js"
import * as SessionStore from "../dist/SessionStore.js"

/** The bytes of the file past what its index (base and log) covers, or -1 without a valid index. */
const uncovered = (f) => {
  let bytes
  try {
    bytes = fs.readFileSync(`${f}.index`)
  } catch {
    return -1
  }
  const length = Format.summaryLength(bytes.subarray(0, Format.HEAD_BYTES))
  const head = length === undefined ? undefined : Format.decodeHead(
    bytes.subarray(0, Format.HEAD_BYTES),
    bytes.subarray(Format.HEAD_BYTES, Format.HEAD_BYTES + length)
  )
  if (head === undefined) return -1
  let summary = head.summary
  for (const record of Log.decode(bytes.subarray(head.baseEnd))) summary = Log.apply(summary, record) ?? summary
  return fs.statSync(f).size - summary.watermark.size
}

const [file, mode = "resume", runsText = "1", other] = process.argv.slice(2)
const runtime = ManagedRuntime.make(SessionStore.layerNode)
const mib = (bytes) => Math.round(bytes / 1048576)
await runtime.runPromise(Effect.void)
const rssBefore = mib(process.memoryUsage().rss)
const times = []
let bounded = false
let messages = 0
if (mode === "pair") {
  // resumes of FILE and of OTHER, interleaved: {"ms": FILE's median, "otherMs": OTHER's median}
  const a = []
  const b = []
  for (let i = 0; i < Number(runsText); i++) {
    for (const [f, into] of [[file, a], [other, b]]) {
      const t = performance.now()
      const sm = await runtime.runPromise(SessionManager.resume(f, undefined, undefined, { readOnly: true }))
      messages = sm.buildSessionContext().messages.length
      into.push(performance.now() - t)
      bounded = sm.isBounded()
    }
  }
  const median = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]
  process.stdout.write(JSON.stringify({ ms: median(a), otherMs: median(b), bounded, messages }) + "\n")
  await runtime.dispose()
  process.exit(0)
}
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
    messages,
    uncovered: uncovered(file)
  }) + "\n"
)
await runtime.dispose()
