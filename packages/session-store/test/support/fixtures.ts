/**
 * The public fixtures (../shared/fixtures beside the repository, else <repo>/fixtures/reference)
 * and the comparison rules of their README (modelled on session-core's test support).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const repoRoot = resolve(import.meta.dirname, "..", "..", "..", "..")

/** The fixtures folder: $BRANCHLOG_FIXTURES, else ../shared/fixtures beside the repository, else the vendored copy. */
export const fixturesDir = (): string => {
  const candidates = [
    process.env.BRANCHLOG_FIXTURES,
    join(repoRoot, "..", "shared", "fixtures"),
    join(repoRoot, "fixtures", "reference")
  ]
  for (const dir of candidates) if (dir !== undefined && existsSync(dir)) return dir
  throw new Error(`no fixtures folder among ${candidates.join(", ")}`)
}

/** A fixture: its name, its bytes and its expectation. */
export interface Fixture {
  readonly name: string
  readonly file: string
  readonly bytes: Buffer
  readonly expected: {
    readonly context: unknown
    readonly tree: unknown
    readonly info: unknown
    readonly idsGenerated?: boolean
    readonly volatile?: ReadonlyArray<string>
  }
}

/** Every `NAME.jsonl` with a `NAME.expected.json` beside it. */
export const fixtures = (): Array<Fixture> => {
  const dir = fixturesDir()
  return readdirSync(dir)
    .filter((file) => file.endsWith(".jsonl") && existsSync(join(dir, file.replace(/\.jsonl$/, ".expected.json"))))
    .sort()
    .map((file) => ({
      name: file.replace(/\.jsonl$/, ""),
      file,
      bytes: readFileSync(join(dir, file)),
      expected: JSON.parse(readFileSync(join(dir, file.replace(/\.jsonl$/, ".expected.json")), "utf8"))
    }))
}

/** JSON round trip. */
export const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** Tree node ids replaced by their position in `nodes`. */
export const structuralTree = (tree: any): unknown => {
  const position = new Map<string, string>(tree.nodes.map((node: any, i: number) => [node.id, `#${i}`]))
  const map = (id: string | null) => (id === null ? null : position.get(id) ?? `?${id}`)
  return {
    leafId: map(tree.leafId),
    roots: tree.roots.map(map),
    nodes: tree.nodes.map((node: any) => ({
      ...node,
      id: map(node.id),
      parentId: map(node.parentId),
      children: node.children.map(map)
    }))
  }
}

/** `leafId` / `fromId` values replaced by a type tag. */
export const idsAsStrings = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value),
    (key, v) => (key === "leafId" || key === "fromId") && typeof v === "string" ? "<string>" : v
  )

/** Values at JSON pointers replaced by a type tag. */
export const maskPointers = (value: unknown, pointers: ReadonlyArray<string>): unknown => {
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

/** The actual and expected answers of one section, after the README's comparison rules. */
export const comparable = (
  fixture: Fixture,
  section: "context" | "tree" | "info",
  actual: unknown
): [unknown, unknown] => {
  const volatile = fixture.expected.volatile ?? []
  const pointers = volatile.filter((p) => p.startsWith(`/${section}/`)).map((p) => p.slice(section.length + 1))
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
  return [got, want]
}
