import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const managerDir = path.join(import.meta.dirname, "..", "src", "internal", "manager")

describe("the manager is storage-neutral", () => {
  it("no file under src/internal/manager imports node:* or uses Buffer", () => {
    const files = fs.readdirSync(managerDir).filter((name) => name.endsWith(".ts"))
    expect(files.length).toBeGreaterThan(5)
    const offending: Array<string> = []
    for (const name of files) {
      const text = fs.readFileSync(path.join(managerDir, name), "utf8")
      text.split("\n").forEach((line, i) => {
        if (/from\s+["']node:|import\(\s*["']node:|require\(\s*["']node:|\bBuffer\b/.test(line)) {
          offending.push(`${name}:${i + 1}: ${line.trim()}`)
        }
      })
    }
    expect(offending).toEqual([])
  })
})
