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
  readonly path: string
  readonly bytes: Buffer
  readonly expected: {
    readonly context: unknown
    readonly tree: unknown
    readonly info: unknown
    readonly idsGenerated?: boolean
    readonly mayRewrite?: boolean
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
      path: join(dir, file),
      bytes: readFileSync(join(dir, file)),
      expected: JSON.parse(readFileSync(join(dir, file.replace(/\.jsonl$/, ".expected.json")), "utf8"))
    }))
}

/** A deterministic id minter for tests: 8 hex chars from a counter, skipping taken ids. */
export const counterMint = (seed = 0) => {
  let n = seed
  return (taken: ReadonlySet<string>): string => {
    for (;;) {
      const id = (0x10000000 + n++).toString(16).slice(-8)
      if (!taken.has(id)) return id
    }
  }
}
