import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SessionManager from "../dist/SessionManager.js"
import * as SessionStore from "../dist/SessionStore.js"
const [file, runs = "30"] = process.argv.slice(2)
const runtime = ManagedRuntime.make(SessionStore.layerNode)
const rows = []
for (let i = 0; i < Number(runs); i++) {
  const t = performance.now()
  const sm = await runtime.runPromise(SessionManager.resume(file, undefined, undefined, { readOnly: true }))
  const t1 = performance.now()
  sm.buildSessionContext()
  const t2 = performance.now()
  const T = globalThis.__T
  rows.push([T[0] - t, ...T.slice(1).map((x, i) => x - T[i]), t1 - T[T.length - 1], t2 - t1, t2 - t])
}
const med = rows[0].map((_, j) => rows.map((r) => r[j]).sort((a, b) => a - b)[rows.length >> 1].toFixed(2))
console.log(med.join(" "))
await runtime.dispose()
