import { Synthetic } from "@branchlog/session-core/testing"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as Connections from "../src/internal/connections.js"
const dbFile = "/tmp/scratch-list.db"
if (!fs.existsSync(dbFile)) {
  const connections = await Effect.runPromise(Connections.make({ busyTimeoutMs: 5000 }))
  const db = await Effect.runPromise(connections.writable(dbFile))
  db.handle.transaction(() => {
    for (let s = 0; s < 10000; s++) {
      const rowsOf = Synthetic.session({ entries: 40, seed: s, branchRate: 0 })
      rowsOf[0] = { ...rowsOf[0], id: `s${s}` }
      db.write(`s${s}`, rowsOf.map((r) => JSON.stringify(r)), { nowMs: Date.now(), create: true })
    }
  })()
  connections.close()
}
const d = new Database(dbFile, { readonly: true })
const now = () => Number(process.hrtime.bigint()) / 1e6
const q = (name: string, sql: string, raw = true) => {
  const st = raw ? d.prepare(sql).raw(true) : d.prepare(sql)
  st.all()
  const ts: number[] = []
  for (let i = 0; i < 11; i++) { const t = now(); st.all(); ts.push(now() - t) }
  ts.sort((a, b) => a - b)
  console.log(name.padEnd(40), ts[5]!.toFixed(1), "ms", "min", ts[0]!.toFixed(1))
}
const cols = `id, header_id, cwd, name, parent_session, created_ms, modified_ms, last_activity_ms, message_count, first_message, all_text`
console.log(d.prepare(`EXPLAIN QUERY PLAN SELECT ${cols} FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`).all())
q("full", `SELECT ${cols} FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`)
q("full objects", `SELECT ${cols} FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`, false)
q("no all_text", `SELECT id, header_id, cwd, name, parent_session, created_ms, modified_ms, last_activity_ms, message_count, first_message FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`)
q("id only", `SELECT id FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`)
q("id only unordered", `SELECT id FROM sessions`)
q("count", `SELECT count(*) FROM sessions`)
q("sum(length(active))", `SELECT sum(length(active)), sum(length(all_text)), sum(length(first_message)) FROM sessions`)
console.log(d.prepare(`SELECT sum(length(active)) a, sum(length(active_filter)) f, sum(length(all_text)) t, sum(length(first_message)) m FROM sessions`).get())
console.log(d.prepare(`PRAGMA page_count`).get(), d.prepare(`PRAGMA page_size`).get())
console.log(d.prepare(`SELECT name, sum(pgsize) FROM dbstat GROUP BY name`).all())
const time = (name: string, f: () => unknown) => { f(); const ts: number[] = []; let keep: unknown; for (let i = 0; i < 15; i++) { const t = now(); keep = f(); ts.push(now() - t) } ts.sort((a, b) => a - b); console.log(name.padEnd(40), ts[7]!.toFixed(1), "ms min", ts[0]!.toFixed(1)); return keep }
const jq = d.prepare(`SELECT json_group_array(json_array(${cols})) FROM (SELECT ${cols} FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC)`).pluck()
time("json_group_array string only", () => jq.get())
time("json_group_array + parse", () => JSON.parse(jq.get() as string))
const raw = d.prepare(`SELECT ${cols} FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`).raw(true)
time("raw all", () => raw.all())
time("raw iterate", () => { const out = []; for (const r of raw.iterate()) out.push(r); return out })
const summ = (rows: any[]) => rows.map(([id, headerId, cwd, name, parentSession, createdMs, modifiedMs, lastActivityMs, count, first, text]) => {
  const s: any = { ref: { _tag: "Sqlite", path: dbFile, id }, path: "sqlite:" + dbFile + "#" + encodeURIComponent(id), id: headerId ?? id, cwd: cwd ?? "" }
  if (name !== null) s.name = name
  if (parentSession !== null) s.parentSessionPath = parentSession
  s.created = new Date(createdMs ?? modifiedMs); s.modified = new Date(lastActivityMs ?? createdMs); s.messageCount = count; s.firstMessage = first ?? "(none)"; s.allMessagesText = text ?? ""
  return s
})
const notext = d.prepare(`SELECT id, header_id, cwd, name, parent_session, created_ms, modified_ms, last_activity_ms, message_count FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`).raw(true)
const texts = d.prepare(`SELECT group_concat(coalesce(first_message, '') || char(31) || all_text, char(31)) FROM (SELECT first_message, all_text FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC)`).pluck()
let keep: unknown[] = []
for (let k = 0; k < 2; k++) {
keep.push(time("raw + summaries", () => summ(raw.all())))
keep.push(time("raw no text + summaries", () => summ(notext.all())))
keep.push(time("group_concat texts", () => texts.get()))
keep.push(time("notext+concat+split+summaries", () => { const rows = notext.all() as any[]; const parts = (texts.get() as string).split("\x1f"); for (let i = 0; i < rows.length; i++) { rows[i].push(parts[2*i], parts[2*i+1]) } return summ(rows) }))
}
