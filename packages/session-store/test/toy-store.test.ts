/**
 * The conformance suite over a TOY row backend (`support/toyStore.ts`): rows in an Effect `Ref`,
 * written only against the public exports of `@branchlog/session-store`, as a backend author
 * outside the package would. Not counted by `pnpm conformance` (that runs `conformance.test.ts`).
 */
import { Conformance } from "@branchlog/session-store/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect, test } from "vitest"
import { toyBackend } from "./support/toyStore.js"

Conformance.suite(toyBackend())

// outside the backend's block: the toy stays a user's backend (public entries only)
test("the toy backend imports only the package's public entries", () => {
  const source = fs.readFileSync(path.join(import.meta.dirname, "support", "toyStore.ts"), "utf8")
  const imports = [...source.matchAll(/from "([^"]+)"/g)].map((m) => m[1]!)
  expect(imports.filter((i) => i.startsWith("@branchlog/session-store"))).toEqual([
    "@branchlog/session-store",
    "@branchlog/session-store/testing"
  ])
  expect(imports.filter((i) => i.startsWith(".") || i.includes("/src/") || i.includes("internal"))).toEqual([])
})
