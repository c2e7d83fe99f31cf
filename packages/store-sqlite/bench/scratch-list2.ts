import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SqliteStore from "../src/SqliteStore.js"
const sqlite = ManagedRuntime.make(SqliteStore.layer({}) as Layer.Layer<TranscriptStore>)
const now = () => Number(process.hrtime.bigint()) / 1e6
const list = () => sqlite.runPromise(Effect.flatMap(TranscriptStore, (store) => store.list({ location: "sqlite:/tmp/scratch-list.db" })))
await list()
const ts: number[] = []
for (let i = 0; i < Number(process.env.N ?? 21); i++) { const t = now(); await list(); ts.push(now() - t) }
ts.sort((a, b) => a - b)
console.log("list median", ts[ts.length >> 1]!.toFixed(1), "min", ts[0]!.toFixed(1))
