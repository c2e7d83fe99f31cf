import { describe, expect, it } from "vitest"
import * as JsonView from "../src/JsonView.js"
import * as Line from "../src/Line.js"
import * as SessionContext from "../src/SessionContext.js"
import * as SessionState from "../src/SessionState.js"
import * as Tree from "../src/Tree.js"
import { assistant, compaction, entry, header, label, stateOf, user } from "./support/build.js"

const at = (id: string, parentId: string | null, timestamp: string) => ({ ...user(id, parentId), timestamp })
const ids = (entries: ReadonlyArray<{ id: string }>) => entries.map((e) => e.id)

describe("Tree.getTree", () => {
  it("orders siblings by time, stably, comparing offsets as instants; roots stay in file order", () => {
    const state = stateOf(
      header(),
      at("r2", null, "2026-01-01T00:00:09.000Z"),
      at("r1", null, "2026-01-01T00:00:01.000Z"),
      at("c3", "r1", "2026-01-01T02:00:03.000+02:00"), // 00:00:03Z
      at("c1", "r1", "2026-01-01T00:00:05.000Z"),
      at("c2", "r1", "2026-01-01T00:00:03.000Z"), // same instant as c3, later in file
      at("c0", "r1", "2026-01-01T00:00:02.000Z")
    )
    const roots = Tree.getTree(state)
    expect(roots.map((n) => n.entry.id)).toEqual(["r2", "r1"])
    expect(roots[1]!.children.map((n) => n.entry.id)).toEqual(["c0", "c3", "c2", "c1"])
  })

  it("shows a duplicated id once per row that carries it, as both references do (the last row is the node)", () => {
    const state = stateOf(
      header(),
      at("a", null, "2026-01-01T00:00:01.000Z"),
      at("b", "a", "2026-01-01T00:00:02.000Z"),
      at("c", "b", "2026-01-01T00:00:03.000Z"),
      at("x", "a", "2026-01-01T00:00:04.000Z"),
      { ...at("b", "a", "2026-01-01T00:00:05.000Z"), message: { role: "user", content: "again", timestamp: 5 } },
      at("b", "x", "2026-01-01T00:00:06.000Z")
    )
    const tree = JsonView.tree(state)
    // b is attached under a twice (two rows) and under x once; each time with its child c; the
    // node is the last row, so it sorts by that row's time (after x)
    expect(tree.nodes.map((n) => `${n.id}<${n.parentId}`)).toEqual([
      "a<null",
      "x<a",
      "b<x",
      "c<b",
      "b<a",
      "c<b",
      "b<a",
      "c<b"
    ])
    expect(tree.nodes[0]!.children).toEqual(["x", "b", "b"])
    const roots = Tree.getTree(state)
    expect(roots[0]!.children[1]!.entry.timestamp).toBe("2026-01-01T00:00:06.000Z")
    expect(JsonView.info(state).entries).toBe(6)
  })

  it("ends where a duplicated row would hang a node under its own descendant (the references loop there)", () => {
    const state = stateOf(header(), user("a", null), user("b", "a"), user("c", "b"), user("b", "c"))
    // b's node is its last row (parent c); the first row puts it under a; c is under b: the
    // edge c → b closes a loop and is left out
    expect(JsonView.tree(state).nodes.map((n) => `${n.id}<${n.parentId}`)).toEqual(["a<null", "b<a", "c<b"])
  })

  it("keeps a tree of many duplicated rows bounded (each copy of a chain doubles what hangs below it)", () => {
    const rows: Array<Record<string, unknown>> = [header()]
    const depth = 40
    for (let i = 0; i < depth; i++) rows.push(user(`e${i}`, i === 0 ? null : `e${i - 1}`))
    for (let i = 0; i < depth; i++) rows.push(user(`e${i}`, i === 0 ? null : `e${i - 1}`)) // written twice
    const state = stateOf(...rows)
    let count = 0
    Tree.walk(Tree.getTree(state), () => count++)
    // the references would need 2^40 nodes; here every id shows, and the total stays bounded
    expect(count).toBeGreaterThanOrEqual(depth)
    expect(count).toBeLessThanOrEqual(Math.max(8 * depth * 2, 2 * depth + 200_000))
  })

  it("makes an entry whose parent is missing, itself, or empty a root", () => {
    const state = stateOf(header(), user("a", null), user("b", "ghost"), user("c", "c"), user("d", ""))
    expect(Tree.getTree(state).map((n) => n.entry.id)).toEqual(["a", "b", "c", "d"])
    expect(JsonView.tree(state).nodes.every((n) => n.parentId === null)).toBe(true)
  })

  it("leaves entries caught in a parent cycle out, and terminates", () => {
    const state = stateOf(header(), user("a", null), user("x", "y"), user("y", "x"), user("b", "a"))
    const seen: Array<string> = []
    Tree.walk(Tree.getTree(state), (node) => seen.push(node.entry.id))
    expect(seen).toEqual(["a", "b"])
  })

  it("hides opaque rows and leaf controls: their children belong to the nearest canonical ancestor", () => {
    const state = stateOf(
      header(),
      user("a", null),
      { type: "x.one", id: "o1", parentId: "a" },
      { type: "x.two", id: "o2", parentId: "o1" },
      user("b", "o2"),
      { type: "x.loop", id: "o3", parentId: "o3" },
      user("c", "o3"),
      { type: "x.loop", id: "o4", parentId: "o4" },
      user("d", "a"),
      user("e", "o4", "not written under the append parent: resolves through the loop to nothing")
    )
    const tree = JsonView.tree(state)
    // c was written under the append parent (o3) while the leaf was b: OpenClaw hangs it under the leaf
    expect(tree.nodes.map((n) => [n.id, n.parentId])).toEqual([["a", null], ["b", "a"], ["c", "b"], ["d", "a"], [
      "e",
      null
    ]])
    expect(Tree.getChildren(state, "a").map((e) => e.id)).toEqual(["b", "d"])
  })

  it("resolves parents that appear later in the file", () => {
    const state = stateOf(header(), user("child", "parent"), user("parent", null))
    expect(JsonView.tree(state).nodes.map((n) => n.id)).toEqual(["parent", "child"])
    expect(ids(Tree.getBranch(state, "child"))).toEqual(["parent", "child"])
  })

  it("keeps its index current as rows are applied, including forward references and duplicates", () => {
    const state = stateOf(header(), user("a", null), user("c", "b"))
    expect(Tree.getChildren(state, null).map((e) => e.id)).toEqual(["a", "c"])
    SessionState.apply(state, Line.parse(JSON.stringify(user("b", "a"))))
    expect(Tree.getChildren(state, "b").map((e) => e.id)).toEqual(["c"])
    expect(Tree.getChildren(state, null).map((e) => e.id)).toEqual(["a"])
    SessionState.apply(state, Line.parse(JSON.stringify(user("d", "c"))))
    expect(Tree.getChildren(state, "c").map((e) => e.id)).toEqual(["d"])
    SessionState.apply(state, Line.parse(JSON.stringify(user("d", "a"))))
    expect(Tree.getChildren(state, "c")).toEqual([])
    expect(Tree.getChildren(state, "a").map((e) => e.id)).toEqual(["b", "d"])
  })

  it("carries labels and their timestamps on the nodes; label entries are nodes", () => {
    const state = stateOf(header(), user("a", null), label("l1", "a", "a", "start"))
    const [root] = Tree.getTree(state)
    expect(root!.label).toBe("start")
    expect(root!.labelTimestamp).toBe(state.byId.get("l1")!.timestamp)
    expect(root!.children.map((n) => n.entry.type)).toEqual(["label"])
  })

  it("handles a chain one million entries deep without recursion", () => {
    const state = SessionState.empty()
    SessionState.apply(state, Line.parse(JSON.stringify(header())))
    let parent: string | null = null
    for (let i = 0; i < 1_000_000; i++) {
      const id = `e${i}`
      SessionState.apply(state, {
        _tag: "Entry",
        entry: { type: "custom", id, parentId: parent, timestamp: "2026-01-01T00:00:00.000Z", customType: "k" },
        line: i + 2,
        offset: 0
      })
      parent = id
    }
    let count = 0
    let depth = 0
    Tree.walk(Tree.getTree(state), (_, d) => {
      count++
      depth = d
    })
    expect(count).toBe(1_000_000)
    expect(depth).toBe(999_999)
    expect(Tree.getBranch(state)).toHaveLength(1_000_000)
    expect(SessionContext.buildSessionContext(state).messages).toEqual([])
  }, 300_000)
})

describe("Tree.getBranch", () => {
  it("is root first, stops at an orphan, and is empty for null or an unknown id", () => {
    const state = stateOf(header(), user("a", null), user("b", "a"), user("c", "missing"), user("d", "c"))
    expect(ids(Tree.getBranch(state, "b"))).toEqual(["a", "b"])
    expect(ids(Tree.getBranch(state))).toEqual(["c", "d"])
    expect(Tree.getBranch(state, null)).toEqual([])
    expect(Tree.getBranch(state, "unknown")).toEqual([])
  })

  it("terminates on a cycle", () => {
    const state = stateOf(header(), user("x", "y"), user("y", "x"))
    expect(ids(Tree.getBranch(state, "y"))).toEqual(["x", "y"])
  })
})

describe("Tree: names and compactions", () => {
  it("takes the latest session_info on any branch, trimmed; an empty name clears it", () => {
    const named = stateOf(header(), user("a", null), entry("session_info", "n1", "a", { name: "  My session  " }))
    expect(Tree.getSessionName(named)).toBe("My session")
    const cleared = stateOf(
      header(),
      user("a", null),
      entry("session_info", "n1", "a", { name: "x" }),
      entry("session_info", "n2", "n1", { name: "  " })
    )
    expect(Tree.getSessionName(cleared)).toBeUndefined()
    const otherBranch = stateOf(
      header(),
      user("a", null),
      entry("session_info", "n1", "a", { name: "side" }),
      user("b", "a")
    )
    expect(Tree.getSessionName(otherBranch)).toBe("side")
    expect(Tree.getSessionName(stateOf(header()))).toBeUndefined()
  })

  it("finds the latest compaction in file order", () => {
    const state = stateOf(
      header(),
      user("a", null),
      compaction("c1", "a", "a"),
      assistant("b", "c1"),
      compaction("c2", "b", "b"),
      user("z", "a")
    )
    expect(Tree.getLatestCompaction(state)?.id).toBe("c2")
    expect(Tree.getLatestCompaction(stateOf(header(), user("a", null)))).toBeUndefined()
  })

  it("gives the leaf entry and entries by id", () => {
    const state = stateOf(header(), user("a", null), user("b", "a"))
    expect(Tree.getLeafEntry(state)?.id).toBe("b")
    expect(Tree.getEntry(state, "a")?.id).toBe("a")
    expect(Tree.getEntry(state, "zz")).toBeUndefined()
    expect(Tree.getLeafEntry(stateOf(header()))).toBeUndefined()
  })
})
