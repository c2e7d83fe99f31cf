/**
 * `SessionOutline`: the tree replayed from the sidecar index equals `Tree.getTree` of a full read
 * (pre-order: depth, id, logical parent, label; the leaf's path), on the reference fixtures and on
 * crafted sessions: ids that collide under the row table's 32-bit hash (as ids, as parents, and as
 * a dangling parent), orphans, a parent cycle, leaf controls, re-parented entries, opaque rows,
 * corrupt lines, labels, side appends; where it cannot be exact it answers `None`.
 */
import { Tree } from "@branchlog/session-core"
import type { SessionState } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import { hash32 } from "../src/internal/index/format.js"
import * as Format from "../src/internal/index/format.js"
import * as SessionOutline from "../src/SessionOutline.js"
import * as SessionStore from "../src/SessionStore.js"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-outline-"))
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

/** Pairs of ids with the same 32-bit hash (FNV-1a of `(i × 2654435761) mod 2^32` in hex). */
const COLLIDING = [["781f49de", "401021bf"], ["a2b93825", "d08f5cbd"], ["33395b0f", "f50329f0"]] as const

const fullTree = (state: SessionState.SessionState) => {
  const out: Array<string> = []
  Tree.walk(Tree.getTree(state), (node, depth) => out.push(`${depth} ${node.entry.id} ${node.parentId} ${node.label}`))
  const path = Tree.getBranch(state).map((e) => e.id)
  return { out, path: path.sort() }
}

const outlineTree = (file: string) =>
  Effect.gen(function*() {
    const outline = yield* SessionOutline.open(file)
    if (Option.isNone(outline)) return undefined
    const tree = yield* outline.value.tree
    if (Option.isNone(tree)) return null
    const t = tree.value
    const order: Array<[number, number, number]> = []
    const stack: Array<[number, number, number]> = t.roots.map((r) => [r, 0, -1] as [number, number, number]).reverse()
    while (stack.length > 0) {
      const item = stack.pop()!
      order.push(item)
      const children = t.children(item[0])
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, item[1] + 1, item[0]])
    }
    const rows = new Set<number>(order.map(([r]) => r))
    for (let r = 0; r < t.rowCount; r++) if (t.onPath(r)) rows.add(r)
    const entries = Option.getOrThrow(yield* outline.value.entriesOf([...rows]))
    const id = (r: number) => r === -1 ? null : entries.get(r)!.id
    const out = order.map(([r, depth, parent]) => `${depth} ${id(r)} ${id(parent)} ${t.label(r)}`)
    const path = [...rows].filter((r) => t.onPath(r)).map((r) => id(r)!).sort()
    return { out, path, outline: outline.value, tree: t }
  })

/** Builds the index (a read-only resume that writes it), then compares the outline's tree with a full read's. */
const compare = (file: string) =>
  Effect.gen(function*() {
    yield* SessionManager.resume(file, undefined, undefined, { readOnly: true, writeIndex: true })
    const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
    const got = yield* outlineTree(file)
    return { want: fullTree(full.getState()), got, state: full.getState() }
  }).pipe(Effect.provide(SessionStore.layerNode))

const write = (name: string, rows: ReadonlyArray<unknown>) => {
  const file = path.join(work, `${name}.jsonl`)
  fs.writeFileSync(file, rows.map((r) => typeof r === "string" ? r : JSON.stringify(r)).join("\n") + "\n")
  return file
}

let clock = 0
const ts = () => new Date(Date.UTC(2026, 0, 1) + (clock++) * 1000).toISOString()
const header = { type: "session", version: 3, id: "s1", timestamp: ts(), cwd: "/w" }
const msg = (id: string, parentId: string | null | undefined, text = id, at = ts()) => ({
  type: "message",
  id,
  ...(parentId === undefined ? {} : { parentId }),
  timestamp: at,
  message: { role: "user", content: text, timestamp: 0 }
})

describe("SessionOutline", () => {
  it("the crafted ids collide under the row table's hash", () => {
    for (const [a, b] of COLLIDING) expect(hash32(a)).toBe(hash32(b))
  })

  for (const fixture of fixtures()) {
    it.live(`fixture ${fixture.name}: the outline's tree is the full read's, or None`, () =>
      Effect.gen(function*() {
        const file = path.join(work, `fixture-${fixture.name}.jsonl`)
        fs.writeFileSync(file, fixture.bytes)
        const { got, want } = yield* compare(file)
        // no usable index (old versions, duplicate ids, side appends, no header first): the caller reads whole
        if (got === undefined) return
        // a usable index: the replay is exact on every fixture
        expect(got).not.toBeNull()
        if (got === null) return
        expect(got.out).toEqual(want.out)
        expect(got.path).toEqual(want.path)
      }))
  }

  it.live("colliding ids, a dangling parent colliding with an id, orphans, a cycle, controls, opaque and corrupt rows", () =>
    Effect.gen(function*() {
      const [[a1, a2], [b1, b2], [c1, c2]] = COLLIDING
      const file = write("crafted", [
        header,
        msg("r", null),
        msg(a1, "r"),
        msg(a2, "r"),
        msg("x", a2),
        msg("y", a1),
        // a dangling parent (b2) colliding with an id (b1)
        msg(b1, "y"),
        msg("dangling", b2),
        msg("orphan", "nowhere"),
        msg("cyc1", "cyc2"),
        msg("cyc2", "cyc1"),
        "{not json",
        { type: "future_thing", id: "op1", parentId: "x", data: 1 },
        msg("underOpaque", "op1"),
        { type: "leaf", id: "ctl1", parentId: "underOpaque", timestamp: ts(), targetId: "y" },
        msg("afterCtl", "ctl1"),
        // no parentId: re-parented under the leaf
        msg("noParent", undefined),
        { type: "leaf", id: "ctl2", parentId: "noParent", timestamp: ts(), targetId: c2 },
        msg(c1, "noParent"),
        msg("tail", c1),
        { type: "label", id: "lab1", parentId: "tail", timestamp: ts(), targetId: a2, label: "two" },
        { type: "label", id: "lab2", parentId: "lab1", timestamp: ts(), targetId: b2, label: "dangling label" },
        "",
        msg("last", "lab2")
      ])
      const { got, want } = yield* compare(file)
      expect(got).toBeDefined()
      expect(got).not.toBeNull()
      expect(got!.out).toEqual(want.out)
      expect(got!.path).toEqual(want.path)
      expect(want.out.some((l) => l.includes("two"))).toBe(true)
      expect(Option.getOrThrow(yield* got!.outline.counts).entries).toBe(18)
      expect(got!.outline.labels).toBe(2)
    }))

  it.live("side appends that converge, and a control that moves the append parent", () =>
    Effect.gen(function*() {
      const file = write("side", [
        header,
        msg("r", null),
        msg("m1", "r"),
        { ...msg("side1", "m1"), appendMode: "side" },
        msg("m2", "side1"),
        { type: "leaf", id: "ctl", parentId: "m2", timestamp: ts(), targetId: "m1", appendParentId: "m2" },
        msg("m3", "m2"),
        msg("m4", "m3")
      ])
      const { got, want } = yield* compare(file)
      if (got === undefined || got === null) return
      expect(got.out).toEqual(want.out)
      expect(got.path).toEqual(want.path)
    }))

  it.live("a generated branching session with ids colliding at branch points", () =>
    Effect.gen(function*() {
      const rows: Array<unknown> = [header, msg("root", null)]
      let parent = "root"
      const ids: Array<string> = ["root"]
      let n = 0
      for (const [a, b] of COLLIDING) {
        for (let i = 0; i < 40; i++) {
          const id = `e${n++}`
          rows.push(msg(id, parent))
          ids.push(id)
          parent = id
        }
        rows.push(msg(a, ids[ids.length - 20]!))
        rows.push(msg(b, ids[ids.length - 20]!, "b", ts()))
        rows.push({ type: "leaf", id: `ctl${n}`, parentId: b, timestamp: ts(), targetId: a })
        parent = a
      }
      const file = write("generated", rows)
      const { got, want } = yield* compare(file)
      expect(got?.out).toEqual(want.out)
      expect(got?.path).toEqual(want.path)
    }))

  it.live("counts by type equal a full read's, over many pieces of the row table and its update log; a damaged table counts nothing", () =>
    Effect.gen(function*() {
      const rows: Array<unknown> = [header, msg("r", null)]
      let parent = "r"
      for (let i = 0; i < 40_000; i++) {
        const id = `n${i}`
        rows.push(
          i % 997 === 0
            ? { type: "thinking_level_change", id, parentId: parent, timestamp: ts(), thinkingLevel: "high" }
            : i % 1499 === 0
            ? { type: "custom", id, parentId: parent, timestamp: ts(), customType: "x", data: i }
            : msg(id, parent)
        )
        parent = id
      }
      const file = write("counts", rows)
      yield* compare(file)
      // a writer's appends land in the index's update log
      const sm = yield* SessionManager.resume(file, undefined, undefined, { eagerFlush: true }).pipe(
        Effect.provide(SessionStore.layerNode)
      )
      yield* sm.appendModelChange("p", "m").pipe(Effect.provide(SessionStore.layerNode))
      yield* sm.appendModelChange("p", "n").pipe(Effect.provide(SessionStore.layerNode))
      const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false }).pipe(
        Effect.provide(SessionStore.layerNode)
      )
      const want = new Map<string, number>()
      for (const e of full.getEntries()) want.set(e.type, (want.get(e.type) ?? 0) + 1)
      const outline = Option.getOrThrow(yield* SessionOutline.open(file).pipe(Effect.provide(SessionStore.layerNode)))
      const counts = Option.getOrThrow(yield* outline.counts)
      expect(counts.entries).toBe(full.getEntries().length)
      expect(new Map(counts.types)).toEqual(want)
      expect(want.get("model_change")).toBe(2)
      // one byte of the row table changed: the checksum refuses it, for the counts and the tree alike
      const index = `${file}.index`
      const bytes = fs.readFileSync(index)
      const first = bytes.subarray(0, Format.HEAD_BYTES)
      const head = Format.decodeHead(
        first,
        bytes.subarray(Format.HEAD_BYTES, Format.HEAD_BYTES + Format.summaryLength(first)!)
      )!
      bytes[head.rowsAt + Format.ROW_BYTES * 100 + 21]! ^= 0xff
      fs.writeFileSync(index, bytes)
      // the summary still answers (it has its own checksum); what the table holds does not
      const damaged = Option.getOrThrow(yield* SessionOutline.open(file).pipe(Effect.provide(SessionStore.layerNode)))
      expect(damaged.compactions).toBe(0)
      expect(Option.isNone(yield* damaged.counts)).toBe(true)
      expect(Option.isNone(yield* damaged.tree)).toBe(true)
    }))

  it.live("an index behind the file gives None", () =>
    Effect.gen(function*() {
      const file = write("behind", [header, msg("r", null), msg("m", "r")])
      yield* compare(file)
      fs.appendFileSync(file, JSON.stringify(msg("later", "m")) + "\n")
      const outline = yield* SessionOutline.open(file).pipe(Effect.provide(SessionStore.layerNode))
      expect(Option.isNone(outline)).toBe(true)
    }))
})
