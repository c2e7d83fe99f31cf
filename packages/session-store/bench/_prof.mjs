import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SessionManager from "../dist/SessionManager.js"
import * as SessionStore from "../dist/SessionStore.js"
const [file, runs = "50"] = process.argv.slice(2)
const runtime = ManagedRuntime.make(SessionStore.layerNode)
const times = []
for (let i = 0; i < Number(runs); i++) {
  const t = performance.now()
  const sm = await runtime.runPromise(SessionManager.resume(file, undefined, undefined, { readOnly: true }))
  sm.buildSessionContext()
  times.push(performance.now() - t)
}
times.sort((a, b) => a - b)
console.log(file.slice(-20), "median", times[times.length >> 1].toFixed(2), "min", times[0].toFixed(2))
await runtime.dispose()
