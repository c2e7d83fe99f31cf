import { describe, expect, it } from "vitest"
import * as Entry from "../src/Entry.js"
import * as Line from "../src/Line.js"
import * as SessionState from "../src/SessionState.js"
import { Synthetic } from "../src/testing.js"
import * as Tree from "../src/Tree.js"
import { assistant, entry, header, label, leaf, stateOf, user } from "./support/build.js"

describe("SessionState: leaf and append parent", () => {
  it("puts the leaf on the last entry in file order, not the deepest", () => {
    const state = stateOf(header(), user("a", null), assistant("b", "a"), user("c", "b"), user("d", "a"))
    expect(state.leafId).toBe("d")
    expect(state.appendParentId).toBe("d")
  })

  it("starts with no leaf", () => {
    expect(stateOf(header()).leafId).toBeNull()
  })

  it("does not move the visible leaf for side appends, but moves the append parent", () => {
    const state = stateOf(header(), user("a", null), assistant("b", "a", "x", "m", { appendMode: "side" }))
    expect(state.leafId).toBe("a")
    expect(state.appendParentId).toBe("b")
    expect(state.entries).toHaveLength(2)
  })

  it("lets a valid leaf control set the leaf and the append parent", () => {
    const state = stateOf(header(), user("a", null), user("b", "a"), leaf("l1", "b", "a", { appendParentId: "b" }))
    expect(state.leafId).toBe("a")
    expect(state.appendParentId).toBe("b")
    expect(state.entries).toHaveLength(2)
  })

  it("lets a leaf control clear the leaf with targetId null", () => {
    const state = stateOf(header(), user("a", null), leaf("l1", "a", null))
    expect(state.leafId).toBeNull()
    expect(state.appendParentId).toBeNull()
  })

  it("ignores a leaf control that names an unknown or later id, and keeps it", () => {
    const state = stateOf(
      header(),
      user("a", null),
      leaf("l1", "a", "zzz"),
      leaf("l2", "a", "a", { appendParentId: "b" }),
      user("b", "a")
    )
    expect([...state.invalidLeafControls]).toEqual(["l1", "l2"])
    expect(state.leafId).toBe("b")
    expect(SessionState.rows(state).filter((r) => r._tag === "LeafControl")).toHaveLength(2)
  })

  it("resolves a leaf control that targets an opaque row to its canonical ancestor", () => {
    const state = stateOf(
      header(),
      user("a", null),
      { type: "x.note", id: "o1", parentId: "a" },
      leaf("l1", "o1", "o1")
    )
    expect(state.leafId).toBe("a")
  })

  it("moves the append parent, not the leaf, for parent-linked opaque rows", () => {
    const state = stateOf(header(), user("a", null), { type: "x.note", id: "o1", parentId: "a" })
    expect(state.leafId).toBe("a")
    expect(state.appendParentId).toBe("o1")
  })

  it("gives an entry written under the append parent, away from the leaf, the leaf as logical parent", () => {
    const state = stateOf(
      header(),
      user("a", null),
      assistant("s", "a", "side", "m", { appendMode: "side" }),
      user("b", "s")
    )
    expect(state.logicalParents.get("b")).toBe("a")
    expect(Tree.getBranch(state).map((e) => e.id)).toEqual(["a", "b"])
  })

  it("gives an entry without a parentId field the leaf as logical parent", () => {
    const { parentId: _, ...orphan } = user("b", null)
    const state = stateOf(header(), user("a", null), orphan)
    expect(state.logicalParents.get("b")).toBe("a")
    expect(Tree.getBranch(state).map((e) => e.id)).toEqual(["a", "b"])
  })

  it("navigates without a row, resolving opaque ids, and refuses unknown ids", () => {
    const state = stateOf(header(), user("a", null), { type: "x.note", id: "o1", parentId: "a" }, user("b", "a"))
    expect(SessionState.navigate(state, "o1")).toBe(true)
    expect(state.leafId).toBe("a")
    expect(SessionState.navigate(state, "nope")).toBe(false)
    expect(state.leafId).toBe("a")
    expect(SessionState.navigate(state, null)).toBe(true)
    expect(state.leafId).toBeNull()
  })
})

describe("SessionState: labels", () => {
  it("sets, overwrites and clears labels, last label entry in file order winning", () => {
    const state = stateOf(
      header(),
      user("a", null),
      label("l1", "a", "a", "first"),
      label("l2", "l1", "a", "second"),
      label("l3", "l2", "l1", "on a label"),
      label("l4", "l3", "l1", ""),
      label("l5", "l4", "ghost", "dangling")
    )
    expect(Tree.getLabel(state, "a")).toBe("second")
    expect(state.labels.get("a")?.timestamp).toBe((state.byId.get("l2") as { timestamp: string }).timestamp)
    expect(Tree.getLabel(state, "l1")).toBeUndefined()
    expect(Tree.getLabel(state, "ghost")).toBe("dangling")
    expect(state.leafId).toBe("l5")
  })

  it("clears a label with a label entry without label", () => {
    const state = stateOf(header(), user("a", null), label("l1", "a", "a", "x"), label("l2", "l1", "a"))
    expect(Tree.getLabel(state, "a")).toBeUndefined()
  })
})

describe("SessionState: what it records", () => {
  it("records duplicate ids; the last row is the entry, both are kept", () => {
    const state = stateOf(header(), user("a", null, "first"), user("a", null, "second"))
    expect([...state.duplicateIds]).toEqual(["a"])
    expect(state.entries).toHaveLength(2)
    expect((state.byId.get("a") as any).message.content).toBe("second")
  })

  it("finds the header after corrupt lines and rows, and keeps later headers", () => {
    const state = stateOf("garbage", header(), user("a", null), header({ id: "other" }))
    expect(state.header?.id).toBe("sess-1")
    expect(SessionState.headerIsFirst(state)).toBe(true)
    expect(state.extraHeaders).toHaveLength(1)
    expect(state.corrupt).toHaveLength(1)
    const late = stateOf(user("a", null), header())
    expect(late.header?.id).toBe("sess-1")
    expect(SessionState.headerIsFirst(late)).toBe(false)
    expect(late.entries).toHaveLength(1)
  })

  it("keeps every row but blank lines, in file order", () => {
    const state = stateOf(
      header(),
      user("a", null),
      "not json",
      { type: "x", id: "o", parentId: "a" },
      "   ",
      leaf("l", "o", "a")
    )
    expect(SessionState.rows(state).map((r) => r._tag)).toEqual(["Header", "Entry", "Corrupt", "Opaque", "LeafControl"])
  })

  it("knows the version, absent meaning 1", () => {
    expect(SessionState.version(stateOf(header()))).toBe(3)
    expect(SessionState.version(stateOf(header({ version: undefined })))).toBe(1)
    expect(SessionState.version(stateOf(user("a", null)))).toBeUndefined()
  })

  it("clones: later applies on either side do not leak", () => {
    const state = stateOf(header(), user("a", null))
    const copy = SessionState.clone(state)
    SessionState.apply(state, Line.parse(JSON.stringify(user("b", "a"))))
    expect(copy.entries).toHaveLength(1)
    expect(copy.leafId).toBe("a")
    expect(state.leafId).toBe("b")
  })

  it("clones copy-on-write: a copy taken after each batch answers as a fresh fold of its own rows", () => {
    const lines = Line.parseText(Synthetic.toText(Synthetic.session({ entries: 3000, seed: 11 })))
    const live = SessionState.empty()
    const copies: Array<{ readonly state: SessionState.SessionState; readonly upTo: number }> = []
    for (const [i, line] of lines.entries()) {
      SessionState.apply(live, line)
      if (i % 97 === 0) copies.push({ state: SessionState.clone(live), upTo: i + 1 })
    }
    // each copy also goes its own way after the split
    const firstId = lines.find((line) => line._tag === "Entry")!
    const extra = JSON.stringify(label("own-label", null, firstId._tag === "Entry" ? firstId.entry.id : "", "mine"))
    for (const copy of copies.slice(0, 5)) SessionState.apply(copy.state, Line.parse(extra))
    for (const [k, copy] of copies.entries()) {
      const own = lines.slice(0, copy.upTo).concat(k < 5 ? [Line.parse(extra)] : [])
      const fresh = SessionState.fromRecords(own)
      expect(copy.state.entries).toEqual(fresh.entries)
      expect(new Map(copy.state.byId)).toEqual(new Map(fresh.byId))
      expect([...copy.state.labels]).toEqual([...fresh.labels])
      expect(copy.state.leafId).toBe(fresh.leafId)
      expect(Tree.getBranch(copy.state)).toEqual(Tree.getBranch(fresh))
    }
    expect(live.entries).toHaveLength(SessionState.fromRecords(lines).entries.length)
  })

  it("clones past a column chunk (4,096 entries): positions, paths and a reshape on one side stay on that side", () => {
    const lines = Line.parseText(Synthetic.toText(Synthetic.session({ entries: 10_000, seed: 5 })))
    const live = SessionState.empty()
    const copies: Array<{ readonly state: SessionState.SessionState; readonly upTo: number }> = []
    for (const [i, line] of lines.entries()) {
      SessionState.apply(live, line)
      if (i === 4095 || i === 4096 || i === 8500) copies.push({ state: SessionState.clone(live), upTo: i + 1 })
    }
    // the first copy gets a row with an earlier entry's id: every parent position is recomputed there
    const entries = lines.filter((line) => line._tag === "Entry")
    const first = entries[0]!
    const last = entries[entries.length - 1]!
    const duplicate = Line.parse(JSON.stringify(user(first._tag === "Entry" ? first.entry.id : "", null)), 99_999, 1)
    SessionState.apply(copies[0]!.state, duplicate)
    const owns = [[duplicate], [], []]
    for (const [k, copy] of copies.entries()) {
      const fresh = SessionState.fromRecords(lines.slice(0, copy.upTo).concat(owns[k]!))
      expect(SessionState.rows(copy.state)).toEqual(SessionState.rows(fresh))
      expect(Tree.getBranch(copy.state)).toEqual(Tree.getBranch(fresh))
      expect(Tree.getTree(copy.state)).toEqual(Tree.getTree(fresh))
    }
    const whole = SessionState.fromRecords(lines)
    expect(SessionState.rows(live)).toEqual(SessionState.rows(whole))
    expect(Tree.getBranch(live)).toEqual(Tree.getBranch(whole))
    const lastId = last._tag === "Entry" ? last.entry.id : ""
    expect(SessionState.positionOf(live, lastId)).toEqual(SessionState.positionOf(whole, lastId))
  })

  it("applies rows one by one to the same result as a fold", () => {
    const rows = [header(), user("a", null), assistant("b", "a"), entry("custom", "c", "b", { customType: "t" })]
    const state = SessionState.empty()
    for (const row of rows) SessionState.apply(state, Line.parse(JSON.stringify(row)))
    const folded = stateOf(...rows)
    expect(state.leafId).toBe(folded.leafId)
    expect(state.entries).toEqual(folded.entries)
  })

  it("knows which ids exist, opaque ones included", () => {
    const state = stateOf(header(), user("a", null), { type: "x", id: "o", parentId: "a" })
    expect(SessionState.hasId(state, "a")).toBe(true)
    expect(SessionState.hasId(state, "o")).toBe(true)
    expect(SessionState.hasId(state, "z")).toBe(false)
  })
})

describe("SessionState.applyTail: the fold every store and the manager share", () => {
  const parse = (rows: ReadonlyArray<unknown>) =>
    rows.map((r, i) => Line.parse(typeof r === "string" ? r : JSON.stringify(r), i + 1, i * 100))

  it("tracks the last row carrying an id (entries, leaf controls, opaque rows with one) and any assistant message", () => {
    const lines = parse([
      header(),
      user("a", null),
      "",
      { type: "pi_future_row", id: "op1", parentId: "a" },
      { type: "pi_future_row", note: "no id" },
      assistant("b", "a"),
      leaf("ctl", "b", "a"),
      "not json"
    ])
    const state = SessionState.empty()
    const tail = SessionState.emptyTail()
    const seen: Array<[string | null, boolean]> = []
    for (const line of lines) {
      SessionState.applyTail(state, tail, line)
      seen.push([tail.tailId, tail.hasAssistant])
    }
    expect(seen).toEqual([
      [null, false],
      ["a", false],
      ["a", false],
      ["op1", false],
      ["op1", false],
      ["b", true],
      ["ctl", true],
      ["ctl", true]
    ])
    // the state is the one `apply` folds
    const applied = SessionState.empty()
    for (const line of lines) SessionState.apply(applied, line)
    expect(state.leafId).toBe(applied.leafId)
    expect(state.entries).toEqual(applied.entries)
  })

  it("rowId ignores an opaque row's empty or non-string id; isAssistantMessage only an assistant's message", () => {
    const [empty, numeric, u, a] = parse([
      { type: "pi_future_row", id: "" },
      { type: "pi_future_row", id: 7 },
      user("u", null),
      assistant("x", "u")
    ])
    expect(Line.rowId(empty!)).toBeUndefined()
    expect(Line.rowId(numeric!)).toBeUndefined()
    expect(u!._tag === "Entry" && Entry.isAssistantMessage(u!.entry)).toBe(false)
    expect(a!._tag === "Entry" && Entry.isAssistantMessage(a!.entry)).toBe(true)
  })
})
