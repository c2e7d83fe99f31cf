import * as fs from "node:fs"
import * as Format from "../dist/internal/index/format.js"
const f = "/tmp/r16/2026-01-01T00-00-00-000Z_big-appended.jsonl.index"
const b = fs.readFileSync(f)
const length = Format.summaryLength(b.subarray(0, 48))
const head = Format.decodeHead(b.subarray(0, 48), b.subarray(48, 48 + length))
console.log({ ...head, summary: undefined, size: b.length })
const fl = Format.decodeFilter(head, b.subarray(head.filterAt, head.baseEnd))
console.log("filter ok", fl !== undefined, fl?.filter.length, fl?.buckets.length)
let maybe = 0
for (let i = 0; i < 1000; i++) if (Format.probe(fl.filter, Format.hash52(`f${String(i).padStart(7, "0")}`))) maybe++
console.log("maybes", maybe)
