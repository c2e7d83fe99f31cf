// The manifests of the public packages against their source: every package `src/` imports is
// declared and every declared one is imported; exports list exactly the public modules (never
// internal/); the release fields (peer ranges, internal ranges, files, LICENSE, repository,
// engines). Each check also runs once on a package made wrong on purpose, so that it can fail.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { expectedExports, publicPackages, workspacePackages } from "../../scripts/package-exports.mjs"
import { caretAllows, dependencyProblems, manifestProblems, type PackageJson } from "../src/Manifest.js"

const temp = mkdtempSync(join(tmpdir(), "branchlog-manifests-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

/** A throwaway package folder with these src files and this manifest. */
const fakePackage = (name: string, files: Record<string, string>, manifest: PackageJson): string => {
  const dir = join(temp, name)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, "src", path, ".."), { recursive: true })
    writeFileSync(join(dir, "src", path), text)
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest))
  return dir
}

describe("imports against declared dependencies", () => {
  for (const { dir, manifest } of publicPackages()) {
    it(`${manifest.name}: src/ imports exactly what package.json declares`, () => {
      expect(dependencyProblems(dir, manifest)).toEqual([])
    })
  }

  it("catches an undeclared import, an unused declaration, and ignores comments and node: modules", () => {
    const dir = fakePackage("lib", {
      "index.ts": [
        "import * as Effect from \"effect/Effect\"",
        "import type { X } from \"@effect/platform/HttpClient\"",
        "// import \"left-pad\" is only a comment",
        "import * as Fs from \"node:fs\"",
        "import * as Path from \"path\"",
        "export const f = () => import(\"./internal/x.js\")"
      ].join("\n"),
      "internal/x.ts": "export * from \"@scope/deep/sub/path\""
    }, {
      name: "@fake/lib",
      dependencies: { "unused-dep": "^1.0.0" },
      peerDependencies: { effect: "^3.22.0" }
    })
    expect(dependencyProblems(dir).map((problem) => problem.replace(dir, ""))).toEqual([
      "/src/index.ts imports @effect/platform, which @fake/lib does not declare",
      "/src/internal/x.ts imports @scope/deep, which @fake/lib does not declare",
      "@fake/lib declares unused-dep, which nothing in its src/ imports"
    ])
  })

  it("a bundle-only command package may declare no runtime dependency", () => {
    const dir = fakePackage("bin", { "bin.ts": "import * as Effect from \"effect/Effect\"" }, {
      name: "@fake/bin",
      branchlog: { publish: "bin" },
      dependencies: { effect: "3.22.4" }
    })
    expect(dependencyProblems(dir)).toEqual([
      "@fake/bin publishes a bundle but declares the runtime dependency effect",
      `${join(dir, "src", "bin.ts")} imports effect, which @fake/bin does not declare`
    ])
  })
})

describe("exports", () => {
  for (const { dir, manifest } of publicPackages()) {
    it(`${manifest.name}: exports every public module of src/, nothing of internal/, no source condition when published`, () => {
      expect(manifest.exports).toEqual(expectedExports(dir, manifest, { source: true }))
      expect(manifest.publishConfig?.exports).toEqual(expectedExports(dir, manifest, { source: false }))
      expect(JSON.stringify(manifest.publishConfig)).not.toContain("@branchlog/source")
      for (const [subpath, target] of Object.entries(manifest.exports as Record<string, unknown>)) {
        if (subpath !== "./internal/*") expect(JSON.stringify(target) ?? "").not.toContain("/internal/")
      }
      if (manifest.branchlog?.publish !== "bin") expect(manifest.exports["./internal/*"]).toBeNull()
    })
  }

  it("a module added to src/ changes the expected exports", () => {
    const dir = fakePackage("mods", { "index.ts": "", "Alpha.ts": "", "bin.ts": "", "internal/Hidden.ts": "" }, {
      name: "@fake/mods",
      bin: { fake: "./dist/bin.js" }
    })
    expect(Object.keys(expectedExports(dir, readFake(dir), { source: false }))).toEqual([
      ".",
      "./package.json",
      "./Alpha",
      "./internal/*"
    ])
  })
})

const readFake = (dir: string): PackageJson => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

describe("release fields", () => {
  for (const { dir, manifest } of publicPackages()) {
    it(`${manifest.name}: peer ranges, internal ranges, files, LICENSE, repository, engines`, () => {
      expect(manifestProblems(dir, manifest)).toEqual([])
    })
  }

  it("catches an exact effect, a workspace:* internal dependency, src in files and a missing LICENSE", () => {
    const dir = fakePackage("bad", { "index.ts": "" }, {
      name: "@fake/bad",
      files: ["dist", "src"],
      dependencies: { effect: "3.22.4", "@branchlog/session-core": "workspace:*" },
      peerDependencies: { "@effect/platform": "^0.97.0" },
      devDependencies: { "@effect/platform": "0.98.0" }
    })
    expect(manifestProblems(dir)).toEqual([
      "@fake/bad: peer range @effect/platform@^0.97.0 does not allow the workspace's 0.98.0",
      "@fake/bad: effect is both a dependency and a peer (or effect is a regular dependency)",
      "@fake/bad: internal dependency @branchlog/session-core is workspace:*, not workspace:^",
      "@fake/bad: no LICENSE file",
      "@fake/bad: license is not MIT",
      "@fake/bad: repository needs url and directory packages/<folder>",
      "@fake/bad: engines.node is not >=20.11",
      "@fake/bad: files ship src/",
      "@fake/bad: files ship dist/.tsbuildinfo"
    ])
  })

  it("caret ranges as npm reads them", () => {
    expect(caretAllows("^3.22.0", "3.22.4")).toBe(true)
    expect(caretAllows("^3.22.0", "3.21.9")).toBe(false)
    expect(caretAllows("^3.22.0", "4.0.0")).toBe(false)
    expect(caretAllows("^0.97.0", "0.97.2")).toBe(true)
    expect(caretAllows("^0.97.0", "0.98.0")).toBe(false)
    expect(caretAllows("^0.0.3", "0.0.4")).toBe(false)
  })

  it("the release check depends on every public package (so that turbo builds them all before it)", () => {
    const own = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"))
    for (const { manifest } of publicPackages()) {
      expect(own.devDependencies[manifest.name], `add "${manifest.name}": "workspace:*" to tooling/release`).toBe(
        "workspace:*"
      )
    }
  })

  it("the private packages are never among the published ones", () => {
    const published = publicPackages().map(({ manifest }) => manifest.name)
    expect(published).not.toContain("@branchlog/tooling")
    expect(published).not.toContain("@branchlog/release-check")
    expect(workspacePackages().length).toBeGreaterThanOrEqual(published.length)
  })
})
