/**
 * Every public package's README starts with an install section whose lines name the Effect 3 line
 * (`effect@^3.22`; `@effect/vitest@^0.30` and `vitest@^3.2` where a test setup is given), as the
 * release check runs them; and its runnable examples (`// file:`) are there.
 */
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { installLines } from "../src/Install.js"
import { exampleFiles } from "../src/Readme.js"
import { publicPackagesOf } from "../src/Workspace.js"

const workspace = resolve(import.meta.dirname, "..", "..", "..")

describe("README install lines", () => {
  it.each(publicPackagesOf(workspace).map((p) => [p.folder, p] as const))("%s", (_, pkg) => {
    const readme = readFileSync(join(pkg.dir, "README.md"), "utf8")
    // the install section comes first, before any other section
    expect(/^## (.*)$/m.exec(readme)?.[1], "the first section").toMatch(/^Install$/)
    const lines = installLines(readme)
    const first = lines[0]!
    expect(first.args, first.text).toContain(pkg.manifest.name)
    const all = lines.flatMap((line) => line.args)
    for (const arg of all.filter((a) => /^(effect|@effect\/[\w-]+|vitest|better-sqlite3|typescript)(@|$)/.test(a))) {
      // every third-party package is named with a range (npm's latest is not what branchlog runs on)
      expect(arg, first.text).toMatch(/@\^/)
    }
    if (pkg.manifest.bin === undefined) expect(first.args).toContain("effect@^3.22")
    if (all.some((a) => a.startsWith("@effect/vitest"))) {
      expect(all).toContain("@effect/vitest@^0.30")
      expect(all).toContain("vitest@^3.2")
    }
    for (const [name, range] of Object.entries<string>(pkg.manifest.peerDependencies ?? {})) {
      if (name.startsWith("@effect/") || name === "effect") expect(range, name).toMatch(/^\^0\.|^\^3\./)
    }
    if (pkg.manifest.bin === undefined) {
      expect(exampleFiles(readme).has("main.ts"), "a // file: main.ts example").toBe(true)
    }
  })
})
