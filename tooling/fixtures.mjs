// The reference fixtures and the comparison rules of their README, shared by every package's
// tests: `../shared/fixtures` beside the repository when it is there (it may hold a larger set),
// else the vendored copy in `fixtures/reference`; `BRANCHLOG_FIXTURES=/path` points elsewhere.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const repoRoot = resolve(import.meta.dirname, "..")

/** The fixtures folder. */
export const fixturesDir = () => {
  const candidates = [
    process.env.BRANCHLOG_FIXTURES,
    join(repoRoot, "..", "shared", "fixtures"),
    join(repoRoot, "fixtures", "reference")
  ]
  for (const dir of candidates) if (dir !== undefined && existsSync(dir)) return dir
  throw new Error(`no fixtures folder among ${candidates.join(", ")}`)
}

/**
 * Files made by our differential run (`pnpm differential --save-fixtures`): random sessions written
 * by pi and damaged or extended on purpose, with the answers of the same two references.
 */
export const differentialDir = join(repoRoot, "fixtures", "differential")

/**
 * Every `NAME.jsonl` with a `NAME.expected.json` beside it, in the reference fixtures and in
 * {@link differentialDir}: name, path, bytes, expected.
 */
export const fixtures = () => [...fixturesIn(fixturesDir()), ...fixturesIn(differentialDir)]

const fixturesIn = (dir) => {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((file) => file.endsWith(".jsonl") && existsSync(join(dir, file.replace(/\.jsonl$/, ".expected.json"))))
    .sort()
    .map((file) => ({
      name: file.replace(/\.jsonl$/, ""),
      path: join(dir, file),
      bytes: readFileSync(join(dir, file)),
      expected: JSON.parse(readFileSync(join(dir, file.replace(/\.jsonl$/, ".expected.json")), "utf8"))
    }))
}

/** JSON round trip: what `JSON.stringify` would print, parsed back (undefined fields gone). */
export const json = (value) => JSON.parse(JSON.stringify(value))

/** Replace every tree node id by its position in `nodes` (`#0`, `#1`, …), for files whose ids are minted. */
export const structuralTree = (tree) => {
  const position = new Map(tree.nodes.map((node, i) => [node.id, `#${i}`]))
  const map = (id) => (id === null ? null : position.get(id) ?? `?${id}`)
  return {
    leafId: map(tree.leafId),
    roots: tree.roots.map(map),
    nodes: tree.nodes.map((node) => ({
      ...node,
      id: map(node.id),
      parentId: map(node.parentId),
      children: node.children.map(map)
    }))
  }
}

/** Replace the values of entry-id fields (`leafId`, `fromId`) by a type tag, for minted ids. */
export const idsAsStrings = (value) =>
  JSON.parse(
    JSON.stringify(value),
    (key, v) => (key === "leafId" || key === "fromId") && typeof v === "string" ? "<string>" : v
  )

/** Set the values at JSON pointers to a type tag (for `volatile` pointers). */
export const maskPointers = (value, pointers) => {
  const copy = JSON.parse(JSON.stringify(value))
  for (const pointer of pointers) {
    const parts = pointer.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    let target = copy
    for (const part of parts.slice(0, -1)) target = target?.[part]
    const last = parts[parts.length - 1]
    if (target !== undefined && target !== null && last !== undefined && last in target) {
      target[last] = `<${typeof target[last]}>`
    }
  }
  return copy
}

/** Both answers of one section (`context`, `tree`, `info`) made comparable by the README's rules. */
export const comparable = (fixture, section, actual) => {
  const pointers = (fixture.expected.volatile ?? [])
    .filter((p) => p.startsWith(`/${section}/`))
    .map((p) => p.slice(section.length + 1))
  let got = maskPointers(json(actual), pointers)
  let want = maskPointers(fixture.expected[section], pointers)
  if (fixture.expected.idsGenerated) {
    if (section === "tree") {
      got = structuralTree(got)
      want = structuralTree(want)
    } else {
      got = idsAsStrings(got)
      want = idsAsStrings(want)
    }
  }
  return { got, want }
}

/**
 * `comparable` for the three views at once: `{got, want}` each an object of `context`, `tree`
 * and `info` (what a test of a store compares in one `expect`).
 */
export const comparableViews = (fixture, views) => {
  const got = {}
  const want = {}
  for (const section of ["context", "tree", "info"]) {
    const pair = comparable(fixture, section, views[section])
    got[section] = pair.got
    want[section] = pair.want
  }
  return { got, want }
}
