/**
 * `Repair` as a library, on real temporary files and on the in-memory volume beside them: every
 * finding with its line and byte offset, every mend with its backup and sidecar, a new header that
 * is the same bytes every run (`IdSource`, `Clock`, the cwd given), and the pure half (rows in,
 * findings and repaired rows out) giving what the streamed repair writes.
 */
import { Entry, Line } from "@branchlog/session-core"
import * as IdSource from "@branchlog/session-store/IdSource"
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as Repair from "../src/Repair.js"
import { cleanupTempRoots, type Env, harnesses, tempDir } from "../src/testing/Harness.js"
import * as TranscriptLock from "../src/TranscriptLock.js"

afterAll(cleanupTempRoots)

const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/p"
})
const entry = (id: string, parentId: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: id, timestamp: 1 },
    ...extra
  })
const row = (value: Record<string, unknown>) => JSON.stringify({ parentId: "a", timestamp: "t", ...value })
const lines = (...rows: ReadonlyArray<string>) => rows.join("\n") + "\n"
const BOM = "\uFEFF"
const NOW = Date.parse("2026-05-01T09:00:00.000Z")

/** The byte offset of 1-based line `line` in `content`. */
const offsetOf = (content: string | Uint8Array, line: number) => {
  const bytes = Buffer.from(content)
  let offset = 0
  for (let i = 1; i < line; i++) offset = bytes.indexOf(0x0a, offset) + 1
  return offset
}

/** One finding case: the file's content, the kind, its line (undefined: the whole file). */
const findingCases: ReadonlyArray<readonly [string, string, Repair.Kind, number | undefined]> = [
  ["a corrupt line", lines(header, entry("a", null), "garbage", entry("b", "a")), "CorruptLine", 3],
  ["a torn tail", lines(header, entry("a", null)) + "{\"type\":\"mess", "TornTail", 3],
  ["a missing header", lines(entry("a", null)), "MissingHeader", undefined],
  ["a late header", lines(entry("a", null), header), "HeaderNotFirst", 2],
  ["a duplicate header", lines(header, entry("a", null), header), "DuplicateHeader", 3],
  ["an orphan", lines(header, entry("a", "ghost")), "Orphan", 2],
  ["a cycle", lines(header, entry("a", null), entry("x", "y"), entry("y", "x")), "Cycle", 3],
  ["a duplicate id", lines(header, entry("a", null), entry("a", null)), "DuplicateId", 3],
  [
    "a dangling label",
    lines(header, entry("a", null), row({ type: "label", id: "l", targetId: "zz", label: "x" })),
    "DanglingLabel",
    3
  ],
  [
    "a compaction keeping nothing",
    lines(
      header,
      entry("a", null),
      row({ type: "compaction", id: "c", summary: "s", firstKeptEntryId: "zz", tokensBefore: 1 })
    ),
    "KeptEntryOffPath",
    3
  ],
  [
    "a leaf control pointing nowhere",
    lines(header, entry("a", null), row({ type: "leaf", id: "l", targetId: "zz" })),
    "InvalidLeafControl",
    3
  ],
  ["a byte-order mark", BOM + lines(header, entry("a", null)), "ByteOrderMark", 1],
  [
    "a message row that is not an entry",
    lines(header, entry("a", null), entry("b", "a", { timestamp: 5 })),
    "MalformedEntry",
    3
  ],
  [
    "a context edit of nothing",
    lines(header, entry("a", null), row({ type: "context_edit", id: "e", targetId: "zz", replacement: null })),
    "DanglingContextEdit",
    3
  ],
  [
    "a context edit without a replacement",
    lines(header, entry("a", null), row({ type: "context_edit", id: "e", targetId: "a", replacement: "x" })),
    "InvalidContextEdit",
    3
  ],
  ["no final newline", lines(header) + entry("a", null), "NoFinalNewline", 2],
  [
    "an old version",
    lines(
      JSON.stringify({ type: "session", id: "o", timestamp: "t", cwd: "/w" }),
      JSON.stringify({ type: "message", timestamp: "t", message: { role: "user", content: "hi" } })
    ),
    "OldVersion",
    undefined
  ]
]

for (const harness of harnesses) {
  /** Runs `effect` over a fresh environment of this backend, ids from a seeded source, the clock at `NOW`. */
  const within = <A, E>(body: (env: Env, file: string) => Effect.Effect<A, E, any>) => {
    const env = harness.make()
    const file = `${env.dir}/s.jsonl`
    return TestClock.setTime(NOW).pipe(
      Effect.zipRight(body(env, file)),
      Effect.provide(env.layer),
      Effect.provide(IdSource.deterministic(7))
    ) as Effect.Effect<A, E>
  }

  describe(`Repair on ${harness.name} files`, () => {
    describe("check", () => {
      for (const [name, content, kind, line] of findingCases) {
        it.effect(`finds ${name} (${kind}) with its line and byte offset`, () =>
          within((env, file) =>
            Effect.gen(function*() {
              env.ext.write(file, content)
              const diagnosis = yield* Repair.check(file)
              const found = diagnosis.findings.find((f) => f._tag === kind)
              expect(found, JSON.stringify(diagnosis.findings)).toBeDefined()
              const at = Repair.position(found!)
              expect(at?.line).toBe(line)
              if (line !== undefined) expect(at?.offset).toBe(offsetOf(content, line))
              expect(Repair.describe(found!).length).toBeGreaterThan(0)
              // read-only: the file is as it was, nothing beside it
              expect(env.ext.read(file)!.equals(Buffer.from(content))).toBe(true)
              expect(env.ext.list(env.dir)).toEqual(["s.jsonl"])
            })
          ))
      }

      it.effect("finds nothing in a clean file", () =>
        within((env, file) =>
          Effect.gen(function*() {
            env.ext.write(file, lines(header, entry("a", null), entry("b", "a")))
            const diagnosis = yield* Repair.check(file)
            expect(diagnosis.findings).toEqual([])
            expect(diagnosis.version).toBe(3)
            expect(diagnosis.state.entries.map((e) => e.id)).toEqual(["a", "b"])
          })
        ))

      it.effect("says which findings are errors and which are warnings, and which repair fixes", () =>
        within((env, file) =>
          Effect.gen(function*() {
            env.ext.write(file, BOM + lines(header, entry("a", "ghost"), "garbage") + "{\"torn")
            const { findings } = yield* Repair.check(file)
            expect(findings.map((f) => [f._tag, Repair.severity(f), Repair.isRepairable(f)])).toEqual([
              ["ByteOrderMark", "warning", true],
              ["Orphan", "error", false],
              ["CorruptLine", "error", true],
              ["TornTail", "error", true]
            ])
            expect(Repair.describe(findings[3]!)).toMatch(/^torn last line \(no newline at the end\): invalid JSON/)
          })
        ))

      it.effect("reports a line over the line ceiling with its size and id, and reads the rest", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const big = entry("b", "a", { message: { role: "user", content: "z".repeat(5000), timestamp: 1 } })
            const content = lines(header, entry("a", null), big, entry("c", "b"))
            env.ext.write(file, content)
            const diagnosis = yield* Repair.check(file)
            expect(diagnosis.findings).toEqual([{
              _tag: "OversizedLine",
              line: 3,
              offset: offsetOf(content, 3),
              byteLength: Buffer.byteLength(big),
              id: "b"
            }])
            expect(Repair.severity(diagnosis.findings[0]!)).toBe("warning")
            expect(diagnosis.state.entries.map((e) => e.id)).toEqual(["a", "c"])
          })
        ).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["BRANCHLOG_MAX_LINE_BYTES", "1024"]])))))

      it.effect("finds bytes that are not UTF-8: each line, and the file offset of its first invalid sequence", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const text = (s: string) => Buffer.from(s)
            const bad = (prefix: string, bytes: ReadonlyArray<number>, suffix: string) =>
              Buffer.concat([text(prefix), Buffer.from(bytes), text(suffix)])
            const start = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"x\":\""
            const rows = [
              text(BOM + header),
              text(entry("a", null, { note: "valid: é ✓ 😀" })),
              bad(start, [0xff], "\"}"), // a byte never in UTF-8
              bad(start.replace("\"b\"", "\"c\""), [0xc0, 0x80], "\"}"), // an overlong NUL
              bad(start.replace("\"b\"", "\"d\""), [0x41, 0xed, 0xa0, 0x80], "\"}"), // an encoded surrogate
              bad(start.replace("\"b\"", "\"e\""), [0xe2, 0x9c], "") // a sequence cut by the end of the line
            ]
            const content = Buffer.concat(rows.flatMap((r) => [r, Buffer.from([0x0a])]))
            env.ext.write(file, content)
            const { findings } = yield* Repair.check(file)
            const invalid = findings.filter((f) => f._tag === "InvalidUtf8")
            const lineStart = (line: number) => offsetOf(content, line)
            expect(invalid).toEqual([
              { _tag: "InvalidUtf8", line: 3, offset: lineStart(3), at: lineStart(3) + Buffer.byteLength(start) },
              { _tag: "InvalidUtf8", line: 4, offset: lineStart(4), at: lineStart(4) + Buffer.byteLength(start) },
              { _tag: "InvalidUtf8", line: 5, offset: lineStart(5), at: lineStart(5) + Buffer.byteLength(start) + 1 },
              { _tag: "InvalidUtf8", line: 6, offset: lineStart(6), at: lineStart(6) + Buffer.byteLength(start) }
            ])
            expect(invalid.map((f) => [Repair.severity(f), Repair.isRepairable(f)])).toEqual(
              invalid.map(() => ["warning", false])
            )
            expect(Repair.describe(invalid[0]!)).toMatch(/^bytes that are not UTF-8 at offset \d+: read as U\+FFFD/)
            // read-only, and the rows still read (as U+FFFD)
            expect(env.ext.read(file)!.equals(content)).toBe(true)
            expect(findings.some((f) => f._tag === "CorruptLine")).toBe(true)
          })
        ))

      it.effect("fails with FileNotFoundError on a missing file", () =>
        within((_env, file) =>
          Effect.gen(function*() {
            const error = yield* Effect.flip(Repair.check(file))
            expect(error._tag).toBe("FileNotFoundError")
          })
        ))
    })

    describe("repair", () => {
      /** Repairs `content` and gives the outcome, the file's bytes and the folder's other files. */
      const mend = (env: Env, file: string, content: string | Uint8Array, cwd = "/work") =>
        Effect.gen(function*() {
          env.ext.write(file, content)
          const outcome = yield* Repair.repair(file, { cwd })
          const others = env.ext.list(env.dir).filter((name) => name !== "s.jsonl")
          const side = (infix: string) => {
            const name = others.find((n) => n.includes(infix))
            return name === undefined ? undefined : env.ext.read(`${env.dir}/${name}`)!.toString("latin1")
          }
          return {
            outcome,
            after: env.ext.read(file)!.toString("latin1"),
            others,
            backup: side(".repair-"),
            removed: side(".removed-")
          }
        })

      it.effect("moves a corrupt line to the sidecar, keeps every entry, and backs up the original", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const content = lines(header, entry("a", null), "garbage", entry("b", "a"))
            const done = yield* mend(env, file, content)
            expect(done.after).toBe(lines(header, entry("a", null), entry("b", "a")))
            expect(done.removed).toBe("garbage\n")
            expect(done.backup).toBe(content)
            expect(done.outcome).toMatchObject({ _tag: "Repaired", moved: 1, header: { _tag: "InPlace" } })
            if (done.outcome._tag !== "Repaired") return
            expect(done.outcome.fixed.map((f) => f._tag)).toEqual(["CorruptLine"])
            expect(done.outcome.backup).toMatch(/s\.jsonl\.repair-2026-05-01T09-00-00-000Z-[0-9a-f]{8}\.jsonl$/)
            expect(done.outcome.removedLines).toMatch(/s\.jsonl\.removed-2026-05-01T09-00-00-000Z\.txt$/)
            expect(done.others.filter((n) => n.endsWith(".tmp"))).toEqual([])
            expect((yield* Repair.check(file)).findings).toEqual([])
          })
        ))

      it.effect("moves a torn tail out and ends the file with a newline", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const done = yield* mend(env, file, lines(header, entry("a", null)) + "{\"type\":\"mess")
            expect(done.after).toBe(lines(header, entry("a", null)))
            expect(done.removed).toBe("{\"type\":\"mess\n")
          })
        ))

      it.effect("writes a new header where there is none: its id from IdSource, its time from Clock, the cwd given", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const done = yield* mend(env, file, lines(entry("a", null), entry("b", "a")), "/home/me/project")
            const expected = Entry.makeHeader({
              id: IdSource.makeDeterministic(7).uuid(),
              timestamp: "2026-05-01T09:00:00.000Z",
              cwd: "/home/me/project"
            })
            expect(done.after).toBe(lines(Line.stringify(expected), entry("a", null), entry("b", "a")))
            expect(done.outcome).toMatchObject({ _tag: "Repaired", header: { _tag: "Created", header: expected } })
            expect(done.removed).toBeUndefined()
          })
        ))

      it.effect("moves a late header to the top and a second header to the sidecar", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const second = JSON.stringify({ type: "session", version: 3, id: "again", timestamp: "t", cwd: "/x" })
            const done = yield* mend(env, file, lines(entry("a", null), header, entry("b", "a"), second))
            expect(done.after).toBe(lines(header, entry("a", null), entry("b", "a")))
            expect(done.removed).toBe(second + "\n")
            if (done.outcome._tag !== "Repaired") return expect.unreachable()
            expect(done.outcome.header).toEqual({ _tag: "Moved", line: 2, text: header })
            expect(done.outcome.fixed.map((f) => f._tag)).toEqual(["HeaderNotFirst", "DuplicateHeader"])
          })
        ))

      it.effect("removes a byte-order mark (from a header or from a corrupt first line), drops blank lines, adds the final newline", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const bom = yield* mend(env, file, BOM + lines(header, "", entry("a", null), "   ") + entry("b", "a"))
            expect(bom.after).toBe(lines(header, entry("a", null), entry("b", "a")))
            expect(bom.removed).toBeUndefined()
            if (bom.outcome._tag !== "Repaired") return expect.unreachable()
            expect(bom.outcome.fixed.map((f) => f._tag)).toEqual(["ByteOrderMark", "NoFinalNewline"])
          })
        ))

      it.effect("moves a corrupt first line with a byte-order mark out without the mark", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const done = yield* mend(env, file, BOM + lines("garbage", header, entry("a", null)))
            expect(done.after).toBe(lines(header, entry("a", null)))
            expect(done.removed).toBe("garbage\n")
          })
        ))

      it.effect("keeps CRLF line ends, opaque rows and invalid UTF-8 byte for byte", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const invalid = Buffer.from([0xff, 0xfe, 0xc3, 0x28])
            const odd = Buffer.concat([
              Buffer.from(
                `{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"user","content":"`
              ),
              invalid,
              Buffer.from(`"}}`)
            ])
            const opaque = JSON.stringify({ type: "openclaw.delivery", id: "d", parentId: "a", status: "ok" })
            const corrupt = Buffer.concat([Buffer.from("{\"broken "), invalid])
            const content = Buffer.concat([
              Buffer.from(`${header}\r\n${entry("a", null)}\n${opaque}\n`),
              odd,
              Buffer.from("\n"),
              corrupt,
              Buffer.from("\n")
            ])
            const done = yield* mend(env, file, content)
            expect(done.after).toBe(
              Buffer.concat([Buffer.from(`${header}\r\n${entry("a", null)}\n${opaque}\n`), odd, Buffer.from("\n")])
                .toString("latin1")
            )
            expect(done.removed).toBe(Buffer.concat([corrupt, Buffer.from("\n")]).toString("latin1"))
            expect(done.backup).toBe(content.toString("latin1"))
          })
        ))

      it.effect("copies a line over the line ceiling byte for byte", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const big = entry("b", "a", { message: { role: "user", content: "z".repeat(5000), timestamp: 1 } })
            const done = yield* mend(env, file, lines(header, entry("a", null), big) + "{torn")
            expect(done.after).toBe(lines(header, entry("a", null), big))
            expect(done.removed).toBe("{torn\n")
          })
        ).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["BRANCHLOG_MAX_LINE_BYTES", "1024"]])))))

      it.effect("writes nothing when nothing can be fixed (orphans, cycles and duplicate ids are reported, not changed)", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const content = lines(header, entry("a", "ghost"), entry("x", "y"), entry("y", "x"), entry("a", null))
            const done = yield* mend(env, file, content)
            if (done.outcome._tag !== "NothingToRepair") return expect.unreachable()
            expect(done.outcome.findings.map((f) => f._tag)).toEqual([
              "Orphan",
              "Cycle",
              "DuplicateId"
            ])
            expect(done.after).toBe(content)
            expect(done.others).toEqual([])
          })
        ))

      it.effect("repairs an empty file with a new header and no backup (there were no bytes to keep)", () =>
        within((env, file) =>
          Effect.gen(function*() {
            const done = yield* mend(env, file, "")
            expect(done.outcome).toMatchObject({ _tag: "Repaired", backup: undefined, header: { _tag: "Created" } })
            expect(done.after.split("\n")[0]).toContain("\"cwd\":\"/work\"")
          })
        ))

      it.effect("gives the same bytes on every run", () =>
        Effect.gen(function*() {
          const content = lines(entry("a", null), "garbage", entry("b", "a"))
          const runs: Array<readonly [string, string | undefined, string | undefined]> = []
          for (let i = 0; i < 2; i++) {
            runs.push(
              yield* within((env, file) =>
                Effect.map(mend(env, file, content), (done) => {
                  const removed = done.outcome._tag === "Repaired" ? done.outcome.removedLines : undefined
                  return [done.after, done.removed, removed?.slice(removed.lastIndexOf("/"))] as const
                })
              )
            )
          }
          expect(runs[0]).toEqual(runs[1])
        }))

      it.live("holds the transcript's lock: it waits for another holder and times out naming it", () => {
        const env = harness.make()
        const file = `${env.dir}/s.jsonl`
        env.ext.write(file, lines(header, "garbage"))
        return Effect.gen(function*() {
          const lock = yield* TranscriptLock.TranscriptLock
          const held = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const holder = yield* Effect.fork(
            lock.withLock(file, Effect.zipRight(Deferred.succeed(held, undefined), Deferred.await(release)))
          )
          yield* Deferred.await(held)
          const error = yield* Effect.flip(Repair.repair(file, { cwd: "/w", lock: { timeoutMs: 200 } }))
          expect(error._tag).toBe("LockTimeoutError")
          expect(env.ext.read(file)!.toString()).toBe(lines(header, "garbage"))
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)
          expect((yield* Repair.repair(file, { cwd: "/w" }))._tag).toBe("Repaired")
        }).pipe(Effect.provide(env.layer))
      })
    })
  })
}

describe("Repair on real files only", () => {
  const layer = harnesses[0]!.make().layer

  it.effect("through a symlink, rewrites the target (named in `written`), leaves the link a link, keeps its sidecar beside the target", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      fs.mkdirSync(path.join(dir, "real"))
      const real = path.join(dir, "real", "s.jsonl")
      const link = path.join(dir, "link.jsonl")
      fs.writeFileSync(real, lines(header, "garbage", entry("a", null)))
      fs.symlinkSync(real, link)
      const outcome = yield* Repair.repair(link, { cwd: "/w" })
      if (outcome._tag !== "Repaired") return expect.unreachable()
      expect(outcome.path).toBe(link)
      expect(outcome.written).toBe(real)
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
      expect(fs.readFileSync(real, "utf8")).toBe(lines(header, entry("a", null)))
      expect(path.dirname(outcome.removedLines!)).toBe(path.join(dir, "real"))
      expect(path.dirname(outcome.backup!)).toBe(path.join(dir, "real"))
      expect(fs.readdirSync(dir).sort()).toEqual(["link.jsonl", "real"])
    }).pipe(Effect.provide(layer)))

  it.effect(
    "refuses a read-only file with a FileSystemError and leaves it and its folder as they were",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const file = path.join(dir, "s.jsonl")
        const content = lines(header, "garbage")
        fs.writeFileSync(file, content)
        fs.chmodSync(file, 0o444)
        const error = yield* Effect.flip(Repair.repair(file, { cwd: "/w" }))
        expect(error._tag).toBe("FileSystemError")
        expect(fs.readFileSync(file, "utf8")).toBe(content)
        expect(fs.readdirSync(dir)).toEqual(["s.jsonl"])
      }).pipe(Effect.provide(layer))
  )
})
