/**
 * The boundaries the lint holds (issue 28), shown firing: session-store (the storage interface)
 * imports no Node module and nothing of a store package (the JSONL backend is
 * `@branchlog/store-jsonl`), and every module of it passes; and `pnpm lint:cycles` (dpdm) fails on
 * a cycle of value imports and not on one of type imports. And no test anywhere uses
 * `@effect/vitest`'s `layer()`, which changes vitest's shared `it` for the later files of a worker.
 */
import { ESLint } from "eslint"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..", "..", "..")

const restricted = async (file: string, code: string, rule = "no-restricted-imports") => {
  const eslint = new ESLint({ cwd: root })
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) })
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message)
}

describe("the storage interface's imports", () => {
  it("a new module of session-store may not import Node's modules or a store package", async () => {
    const neutral = "packages/session-store/src/NewNeutralModule.ts"
    for (
      const code of [
        `import * as fs from "node:fs"\nexport const f = fs\n`,
        `import * as path from "path"\nexport const p = path\n`,
        `import type { Stats } from "node:fs"\nexport type S = Stats\n`,
        `import { SqliteStore } from "@branchlog/store-sqlite"\nexport const s = SqliteStore\n`,
        `import * as J from "@branchlog/store-jsonl/JsonlStore"\nexport const j = J\n`
      ]
    ) {
      expect(await restricted(neutral, code), code).toHaveLength(1)
    }
    // what it may import
    expect(await restricted(neutral, `import * as Effect from "effect/Effect"\nexport const e = Effect\n`)).toEqual([])
    // the rule is session-store's: a backend package imports Node freely
    expect(
      await restricted("packages/store-sqlite/src/NewModule.ts", `import * as fs from "node:fs"\nexport const f = fs\n`)
    )
      .toEqual([])
  }, 60_000)

  it("every module of session-store passes the rule: none imports Node or a store package", async () => {
    const eslint = new ESLint({ cwd: root })
    const results = await eslint.lintFiles(["packages/session-store/src/**/*.ts"])
    expect(results.length).toBeGreaterThan(40)
    const found = results.flatMap((result) =>
      result.messages
        .filter((m) => m.ruleId === "no-restricted-imports")
        .map((m) => `${path.relative(root, result.filePath)}:${m.line}: ${m.message}`)
    )
    expect(found).toEqual([])
    // and no source file names a Node module at all (not even through a dynamic import)
    const sources = results.map((result) => fs.readFileSync(result.filePath, "utf8"))
    expect(sources.filter((source) => /["']node:[a-z_/]+["']/.test(source))).toEqual([])
  }, 120_000)
})

describe("@effect/vitest's layer()", () => {
  it("is refused in any test or testing module, imported or as it.layer; its other methods are not", async () => {
    for (
      const file of [
        "packages/store-jsonl/test/new.test.ts",
        "packages/session-store/src/testing/conformance/new.ts",
        "tooling/release/test/new.test.ts"
      ]
    ) {
      const imported = await restricted(file, `import { layer } from "@effect/vitest"\nexport const l = layer\n`)
      expect(imported, file).toHaveLength(1)
      expect(imported[0]).toContain("shared `it`")
      const called = `import { it } from "@effect/vitest"\nimport * as Layer from "effect/Layer"\n` +
        `it.layer(Layer.empty)((it) => it.effect("x", () => undefined as never))\n`
      expect(await restricted(file, called, "no-restricted-syntax"), file).toHaveLength(1)
      const allowed =
        `import { describe, it } from "@effect/vitest"\nexport const m = [describe, it.effect, it.scopedLive]\n`
      expect(await restricted(file, allowed), file).toEqual([])
    }
  }, 60_000)
})

describe("import cycles (pnpm lint:cycles)", () => {
  // the script's own flags (NodeNext resolution through the tooling tsconfig: `./x.js` is `./x.ts`), on another glob
  const script = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    readonly scripts: Record<string, string>
  }).scripts["lint:cycles"]!
  const flags = script.replace(/^dpdm /, "").replace(/ "[^"]+"$/, "").split(" ")
  const dpdm = (dir: string) =>
    spawnSync(path.join(root, "node_modules", ".bin", "dpdm"), [...flags, `${dir}/*.ts`], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000
    })
  const project = (files: Record<string, string>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-cycles-"))
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
    return dir
  }

  it("fails on a cycle of value imports, not on one of type imports", () => {
    const values = project({
      "a.ts": `import { b } from "./b.js"\nexport const a = () => b()\n`,
      "b.ts": `import { a } from "./a.js"\nexport const b = () => a\n`
    })
    const types = project({
      "a.ts": `import type { B } from "./b.js"\nexport interface A { readonly b?: B }\nexport const a = 1\n`,
      "b.ts": `import type { A } from "./a.js"\nexport interface B { readonly a?: A }\nexport const b = 2\n`
    })
    expect(flags).toContain("--tsconfig")
    const withCycle = dpdm(values)
    expect(withCycle.status, withCycle.stdout).toBe(1)
    expect(withCycle.stdout).toContain("a.ts")
    const typesOnly = dpdm(types)
    expect(typesOnly.status, typesOnly.stdout + typesOnly.stderr).toBe(0)
  }, 120_000)
})
