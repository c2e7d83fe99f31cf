import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as BuiltinTools from "../src/BuiltinTools.js"
import * as Tool from "../src/Tool.js"
import * as ToolRegistry from "../src/ToolRegistry.js"
import * as Workspace from "../src/Workspace.js"

const simple = (name: string, extra: Partial<Tool.AnyTool> = {}): Tool.AnyTool =>
  Tool.make({
    name,
    description: `The ${name} tool.`,
    parameters: Schema.Struct({ x: Schema.optional(Schema.String) }),
    execute: () => Effect.succeed(Tool.text(name)),
    ...extra
  })

const builtins = BuiltinTools.all(Workspace.memory())
const EXT = "/home/u/.pi/extensions/ops.ts"
const extTools = [
  simple("lint", { promptSnippet: "  Lint   the\ncode ", promptGuidelines: [" Lint first. ", "", "Lint first."] }),
  simple("deploy")
]
const sdkTools = [simple("search")]

const make = (options: Omit<ToolRegistry.Options, "builtinTools" | "sdkTools"> = {}) =>
  ToolRegistry.make({ builtinTools: builtins, sdkTools, ...options })

interface Case {
  readonly name: string
  readonly allowed?: ReadonlyArray<string>
  readonly disable: boolean
  readonly before: ReadonlyArray<string>
  readonly afterAdd: ReadonlyArray<string>
  readonly registry: ReadonlyArray<string>
}

// Every combination of: allow-list (none / built-ins + lint + search / only lint) × built-ins disabled or not.
const cases: ReadonlyArray<Case> = [
  {
    name: "no allow-list, built-ins on",
    disable: false,
    before: ["read", "bash", "edit", "write", "search"],
    afterAdd: ["read", "bash", "edit", "write", "search", "lint", "deploy"],
    registry: ["read", "bash", "edit", "write", "lint", "deploy", "search"]
  },
  {
    name: "no allow-list, built-ins off (only extensions and SDK)",
    disable: true,
    before: ["search"],
    afterAdd: ["search", "lint", "deploy"],
    registry: ["lint", "deploy", "search"]
  },
  {
    name: "allow-list = all built-ins + lint + search (no extension deploy)",
    allowed: ["read", "bash", "edit", "write", "lint", "search"],
    disable: false,
    before: ["read", "bash", "edit", "write", "search"],
    afterAdd: ["read", "bash", "edit", "write", "search", "lint"],
    registry: ["read", "bash", "edit", "write", "lint", "search"]
  },
  {
    name: "allow-list = all built-ins + lint + search, built-ins off",
    allowed: ["read", "bash", "edit", "write", "lint", "search"],
    disable: true,
    before: ["search"],
    afterAdd: ["search", "lint"],
    registry: ["lint", "search"]
  },
  {
    name: "allow-list = lint only, built-ins on",
    allowed: ["lint"],
    disable: false,
    before: [],
    afterAdd: ["lint"],
    registry: ["lint"]
  },
  {
    name: "allow-list = lint only, built-ins off",
    allowed: ["lint"],
    disable: true,
    before: [],
    afterAdd: ["lint"],
    registry: ["lint"]
  }
]

describe("ToolRegistry", () => {
  for (const c of cases) {
    it(`${c.name}: maps, active set, extension add / remove / re-add`, () => {
      const r = make({ ...(c.allowed ? { allowedToolNames: c.allowed } : {}), disableBuiltInTools: c.disable })
      expect(r.activeToolNames()).toEqual(c.before)
      r.registerExtensionTools(EXT, extTools)
      expect(r.activeToolNames()).toEqual(c.afterAdd)
      expect([...r.definitions().keys()]).toEqual(c.registry)
      expect([...r.tools().keys()]).toEqual(c.registry)
      expect([...r.promptSnippets().keys()]).toEqual(c.registry)
      expect([...r.promptGuidelines().keys()]).toEqual(c.registry)
      for (const [name, def] of r.definitions()) {
        const expected = builtins.some((b) => b.name === name) ? "builtin" : name === "search" ? "sdk" : "extension"
        expect(def.source._tag).toBe(expected)
        if (def.source._tag === "extension") expect(def.source.path).toBe(EXT)
        expect(r.isAllowed(name, def.source)).toBe(true)
      }
      r.unregisterExtension(EXT)
      expect(r.activeToolNames()).toEqual(c.before)
      r.registerExtensionTools(EXT, extTools)
      expect(r.activeToolNames()).toEqual(c.afterAdd)
    })
  }

  it("judges the allow-list and disabled built-ins independently", () => {
    const r = make({ allowedToolNames: ["read", "lint"], disableBuiltInTools: true })
    expect(r.isAllowed("read", { _tag: "builtin" })).toBe(false)
    expect(r.isAllowed("lint", { _tag: "extension", path: EXT })).toBe(true)
    expect(r.isAllowed("deploy", { _tag: "extension", path: EXT })).toBe(false)
    expect(r.isAllowed("read", { _tag: "sdk" })).toBe(true)
    const open = make({ disableBuiltInTools: false })
    expect(open.isAllowed("anything", { _tag: "builtin" })).toBe(true)
  })

  it("keeps a tool the user turned off inactive when extensions come and go", () => {
    const r = make()
    expect(r.setActiveToolsByName(["read", "edit", "write", "nope"])).toEqual(["read", "edit", "write"])
    r.registerExtensionTools(EXT, extTools)
    expect(r.activeToolNames()).toEqual(["read", "edit", "write", "lint", "deploy"])
    r.registerExtensionTools(EXT, [extTools[0]!]) // re-install with one tool fewer
    expect(r.activeToolNames()).toEqual(["read", "edit", "write", "lint"])
    r.unregisterExtension(EXT)
    r.registerExtensionTools(EXT, extTools) // re-install: never empties, comes back
    expect(r.activeToolNames()).toEqual(["read", "edit", "write", "lint", "deploy"])
  })

  it("re-installing the only tools of an extensions-only agent never leaves it empty", () => {
    const r = ToolRegistry.make({ builtinTools: builtins, disableBuiltInTools: true })
    r.registerExtensionTools(EXT, extTools)
    expect(r.activeToolNames()).toEqual(["lint", "deploy"])
    r.unregisterExtension(EXT)
    expect(r.activeToolNames()).toEqual([])
    r.registerExtensionTools(EXT, extTools)
    expect(r.activeToolNames()).toEqual(["lint", "deploy"])
  })

  it("an explicit list adds no new tools; includeAllExtensionTools adds every extension tool", () => {
    const r = make()
    r.registerExtensionTools(EXT, extTools)
    expect(r.refresh({ activeToolNames: ["bash", "read", "bash", "missing"] })).toEqual(["bash", "read"])
    expect(r.refresh({ activeToolNames: ["read"], includeAllExtensionTools: true })).toEqual(["read", "lint", "deploy"])
    expect(r.refresh()).toEqual(["read", "lint", "deploy"])
  })

  it("with an allow-list every allowed tool is active, even after an explicit list", () => {
    const r = make({ allowedToolNames: ["read", "lint"] })
    r.registerExtensionTools(EXT, extTools)
    expect(r.refresh({ activeToolNames: ["lint"] })).toEqual(["lint", "read"])
  })

  it("changing the filters refreshes: re-enabled built-ins appear as new tools", () => {
    const r = make({ disableBuiltInTools: true })
    expect(r.activeToolNames()).toEqual(["search"])
    r.setFilters({ disableBuiltInTools: false })
    expect(r.activeToolNames()).toEqual(["search", "read", "bash", "edit", "write"])
    r.setFilters({ allowedToolNames: ["bash"] })
    expect(r.activeToolNames()).toEqual(["bash"])
    r.setFilters({ allowedToolNames: undefined })
    expect(r.activeToolNames()).toEqual(["bash", "read", "edit", "write", "search"])
  })

  it("an SDK tool wins a name clash, and its source is sdk", () => {
    const r = ToolRegistry.make({ builtinTools: builtins, sdkTools: [simple("read")] })
    expect(r.definitions().get("read")!.source).toEqual({ _tag: "sdk" })
    expect(r.definitions().get("read")!.definition.description).toBe("The read tool.")
  })

  it("normalises snippets and guidelines", () => {
    const r = make()
    r.registerExtensionTools(EXT, extTools)
    expect(r.promptSnippets().get("lint")).toBe("Lint the code")
    expect(r.promptSnippets().get("deploy")).toBe("The deploy tool.")
    expect(r.promptGuidelines().get("lint")).toEqual(["Lint first."])
  })

  it("exports parameters as JSON Schema", () => {
    const read = BuiltinTools.read(Workspace.memory())
    expect(Tool.toSpec(read)).toEqual({
      name: "read",
      description: "Read a text file of the workspace.",
      parameters: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        required: ["path"],
        properties: {
          path: { type: "string" },
          offset: { type: "integer", title: "offset", description: "First line to read (1-based)", minimum: 1 },
          limit: { type: "integer", title: "limit", description: "How many lines to read", minimum: 1 }
        },
        additionalProperties: false
      }
    })
  })

  it("property: the active set is always unique, registered and allowed", () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("add" as const),
        path: fc.constantFrom("/a", "/b"),
        names: fc.subarray(["lint", "deploy", "read", "x"])
      }),
      fc.record({ kind: fc.constant("remove" as const), path: fc.constantFrom("/a", "/b") }),
      fc.record({
        kind: fc.constant("set" as const),
        names: fc.subarray(["read", "bash", "lint", "deploy", "x", "zzz"])
      }),
      fc.record({
        kind: fc.constant("filters" as const),
        allowed: fc.option(fc.subarray(["read", "lint", "x"]), { nil: undefined }),
        disable: fc.boolean()
      }),
      fc.record({ kind: fc.constant("all" as const) })
    )
    fc.assert(fc.property(fc.array(op, { maxLength: 25 }), (ops) => {
      const r = make()
      for (const o of ops) {
        if (o.kind === "add") r.registerExtensionTools(o.path, o.names.map((n) => simple(n)))
        else if (o.kind === "remove") r.unregisterExtension(o.path)
        else if (o.kind === "set") r.setActiveToolsByName(o.names)
        else if (o.kind === "filters") r.setFilters({ allowedToolNames: o.allowed, disableBuiltInTools: o.disable })
        else r.refresh({ includeAllExtensionTools: true })
        const active = r.activeToolNames()
        expect(new Set(active).size).toBe(active.length)
        for (const name of active) {
          const def = r.definitions().get(name)
          expect(def).toBeDefined()
          expect(r.isAllowed(name, def!.source)).toBe(true)
        }
        expect(r.activeTools().map((t) => t.name)).toEqual(active)
      }
    }))
  })
})
