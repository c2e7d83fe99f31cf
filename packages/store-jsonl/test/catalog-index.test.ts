/**
 * The catalog index of a session folder (`.branchlog-catalog.json`): a listing through it equals
 * a listing without it (`index: "off"`) after appends, rewrites, removals, new files, a damaged
 * index, a foreign tool's same-size edit, and two processes writing the index at once; a warm
 * listing reads no session file (the bytes-read counter), only the files whose watermark changed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as CatalogIndex from "../src/internal/catalogIndex.js"
import * as SessionCatalog from "../src/SessionCatalog.js"
import * as SessionFiles from "../src/SessionFiles.js"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { TranscriptFile } from "../src/TranscriptFile.js"
import { start } from "./support/children.js"
import { assistant, entryLine, headerLine, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const hourAgo = Date.now() / 1000 - 3600
let tick = 0
/** Sets a file's mtime an hour back (a different second each time): no longer "racily" recent. */
const age = (file: string) => fs.utimesSync(file, hourAgo + tick, hourAgo + ++tick)
const ageAll = (dir: string) => {
  for (const name of fs.readdirSync(dir)) if (name.endsWith(".jsonl")) age(path.join(dir, name))
}

/** A session of `n` messages, the text of each `size` characters. */
const session = (id: string, n: number, size = 10) => {
  const lines = [headerLine(id)]
  let parent: string | null = null
  for (let i = 0; i < n; i++) {
    const eid = `${id.slice(0, 4)}${String(i).padStart(4, "0")}`
    const text = `${id} ${i} ${"x".repeat(size)}`
    lines.push(entryLine(eid, parent, i % 2 === 0 ? user(text) : assistant(text)))
    parent = eid
  }
  return lines.join("\n") + "\n"
}

const list = (dir: string, index: "write" | "read" | "off") => SessionCatalog.list("", dir, undefined, { index })
/** Plain objects (a lazy `allMessagesText` read) for comparisons. */
const plain = (infos: ReadonlyArray<SessionCatalog.SessionInfo>) => infos.map((i) => ({ ...i }))

/** Lists through the index (writing it) and without it: equal; returns the session bytes read by the first. */
const same = (dir: string) =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile
    const before = yield* files.bytesRead
    const through = yield* list(dir, "write")
    const read = (yield* files.bytesRead) - before
    const without = yield* list(dir, "off")
    expect(plain(through)).toEqual(plain(without))
    return { read, infos: without }
  })

const catalogSize = (dir: string) => fs.statSync(path.join(dir, SessionFiles.CATALOG_NAME)).size

const folder = () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, "a.jsonl"), session("aaaa-1", 2))
  fs.writeFileSync(path.join(dir, "b.jsonl"), session("bbbb-2", 20, 300)) // a long text: read on demand
  fs.writeFileSync(path.join(dir, "c.jsonl"), session("cccc-3", 5))
  fs.writeFileSync(path.join(dir, "notes.jsonl"), "not a session\n")
  ageAll(dir)
  return dir
}

describe("the catalog index", () => {
  it.live("a warm listing reads only the index; appends, rewrites, removals, new files are seen", () =>
    Effect.gen(function*() {
      const dir = folder()
      const first = yield* same(dir)
      expect(first.infos.map((i) => i.id).sort()).toEqual(["aaaa-1", "bbbb-2", "cccc-3"])
      expect(SessionFiles.sideFile(SessionFiles.CATALOG_NAME)?.kind).toBe("catalog")
      const warm = yield* same(dir)
      expect(warm.read).toBe(catalogSize(dir)) // no session file read
      // the long text is read again on demand, and equals the full listing's
      const lazy = (yield* list(dir, "write")).find((i) => i.id === "bbbb-2")!
      expect(lazy.allMessagesText.length).toBeGreaterThan(CatalogIndex.MAX_STORED_TEXT)
      expect(lazy.allMessagesText).toBe(first.infos.find((i) => i.id === "bbbb-2")!.allMessagesText)

      // an append (fresh mtime: re-read at once, and while racily recent)
      fs.appendFileSync(path.join(dir, "a.jsonl"), entryLine("zzzz0001", "aaaa0001", user("appended")) + "\n")
      expect((yield* same(dir)).infos.find((i) => i.id === "aaaa-1")!.messageCount).toBe(3)
      // a rewrite through a rename (another inode), a removal, a new file
      fs.writeFileSync(path.join(dir, "c.tmp"), session("cccc-3", 7))
      fs.renameSync(path.join(dir, "c.tmp"), path.join(dir, "c.jsonl"))
      fs.rmSync(path.join(dir, "b.jsonl"))
      fs.writeFileSync(path.join(dir, "d.jsonl"), session("dddd-4", 3))
      ageAll(dir)
      const changed = yield* same(dir)
      expect(changed.infos.map((i) => [i.id, i.messageCount]).sort()).toEqual([["aaaa-1", 3], ["cccc-3", 7], [
        "dddd-4",
        3
      ]])
      // only the changed files were read (a and d are new or re-read; c renamed)
      const sizes = ["a.jsonl", "c.jsonl", "d.jsonl"].map((n) => fs.statSync(path.join(dir, n)).size)
      expect(changed.read).toBeLessThanOrEqual(catalogSize(dir) + sizes.reduce((x, y) => x + y, 0) + 4096)
      expect((yield* same(dir)).read).toBe(catalogSize(dir))
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.live("a warm listing rewrites no index and reports the files it vouches for in one step", () =>
    Effect.gen(function*() {
      const dir = folder()
      yield* same(dir)
      const catalog = path.join(dir, SessionFiles.CATALOG_NAME)
      const before = fs.statSync(catalog, { bigint: true })
      const progress: Array<string> = []
      yield* SessionCatalog.list("", dir, (n, total) => progress.push(`${n}/${total}`), { index: "write" })
      yield* list(dir, "write")
      const after = fs.statSync(catalog, { bigint: true })
      expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]) // not written again
      expect(progress).toEqual(["4/4"])
      // one file changed: that one read (and reported) after the others, and the index rewritten
      fs.appendFileSync(path.join(dir, "c.jsonl"), entryLine("cccc9999", "cccc0004", user("more")) + "\n")
      age(path.join(dir, "c.jsonl"))
      progress.length = 0
      yield* SessionCatalog.list("", dir, (n, total) => progress.push(`${n}/${total}`), { index: "write" })
      expect(progress).toEqual(["3/4", "4/4"])
      expect(fs.statSync(catalog, { bigint: true }).ino).not.toBe(before.ino)
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.live("a long text stays unread through extend, is read once for an info and its copies, and a spread reads it", () =>
    Effect.gen(function*() {
      const dir = folder()
      const full = (yield* list(dir, "off")).find((i) => i.id === "bbbb-2")!.allMessagesText
      yield* list(dir, "write")
      const files = yield* TranscriptFile
      const size = fs.statSync(path.join(dir, "b.jsonl")).size
      const listed = (yield* list(dir, "write")).find((i) => i.id === "bbbb-2")!
      const start = yield* files.bytesRead
      const copy = SessionCatalog.extend(listed, { ref: "r" })
      const copyOfCopy = SessionCatalog.extend(copy, { more: 1 })
      expect(Object.keys(copyOfCopy)).toEqual([...Object.keys(listed), "ref", "more"])
      expect(JSON.stringify(Object.keys(copy))).not.toContain("Symbol")
      expect((yield* files.bytesRead) - start).toBe(0) // nothing read yet
      expect(copyOfCopy.allMessagesText).toBe(full)
      expect((yield* files.bytesRead) - start).toBe(size)
      expect(listed.allMessagesText).toBe(full) // the same read
      expect({ ...copy }).toEqual({ ...listed, ref: "r" })
      expect((yield* files.bytesRead) - start).toBe(size)
      // a short text is a plain field; extend of a plain info is a plain copy
      const short = (yield* list(dir, "write")).find((i) => i.id === "aaaa-1")!
      expect(Object.getOwnPropertyDescriptor(short, "allMessagesText")?.value).toBeTypeOf("string")
      expect(SessionCatalog.extend(short, { ref: "s" })).toEqual({ ...short, ref: "s" })
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.live("a foreign tool's same-size edit with another mtime is seen", () =>
    Effect.gen(function*() {
      const dir = folder()
      yield* same(dir)
      const file = path.join(dir, "c.jsonl")
      const text = fs.readFileSync(file, "utf8")
      const edited = text.replace("cccc-3 0 ", "CCCC-3 0 ")
      expect(edited.length).toBe(text.length)
      fs.writeFileSync(file, edited)
      age(file)
      const after = yield* same(dir)
      expect(after.infos.find((i) => i.id === "cccc-3")!.firstMessage).toMatch(/^CCCC-3 0 /)
      // a same-size edit that keeps the mtime of a write in the same clock tick as the read (racily
      // recent when it was read) is seen too. (The mtime is "now", not a whole second before: one up
      // to 2 s old set again by hand is `touch -r`, which the rule cannot see, and was a rare flake.)
      const recent = Date.now() / 1000
      fs.writeFileSync(file, text)
      fs.utimesSync(file, recent, recent)
      yield* same(dir)
      fs.writeFileSync(file, edited)
      fs.utimesSync(file, recent, recent)
      expect((yield* same(dir)).infos.find((i) => i.id === "cccc-3")!.firstMessage).toMatch(/^CCCC-3 0 /)
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.live("a damaged, truncated, foreign or other-version index is ignored and rebuilt", () =>
    Effect.gen(function*() {
      const dir = folder()
      yield* same(dir)
      const catalog = path.join(dir, SessionFiles.CATALOG_NAME)
      const good = fs.readFileSync(catalog, "utf8")
      const damages = [
        good.slice(0, good.length >> 1),
        good.replace("\"version\":2", "\"version\":3"),
        good.replace(/\["a\.jsonl",(\d+)/, "[\"a.jsonl\",\"$1\""),
        "{\"format\":\"branchlog-catalog\",\"version\":2,\"sessions\":[[\"a.jsonl\",1,2,3]]}",
        "\u0000\u0001garbage",
        JSON.stringify({ sessions: [] }),
        // version 1 (an object keyed by name): not read, rebuilt
        "{\"format\":\"branchlog-catalog\",\"version\":1,\"sessions\":{}}",
        // another folder's index: the same names, other files (other inodes) → re-read
        good.replace(/\["a\.jsonl",(\d+),"(\d+)","(\d+)","(\d+)"/, (_m, s, t, d) => `["a.jsonl",${s},"${t}","${d}","1"`)
      ]
      for (const damage of damages) expect(damage).not.toBe(good)
      for (const damage of damages) {
        fs.writeFileSync(catalog, damage)
        yield* same(dir)
        expect(CatalogIndex.decode(fs.readFileSync(catalog, "utf8"))).toBeDefined()
        expect((yield* same(dir)).read).toBe(catalogSize(dir))
      }
      // a bit-flip inside an entry's numbers: the entry no longer matches, that file is re-read
      const flipped = good.replace(/\["c\.jsonl",(\d+)/, (_m, s) => `["c.jsonl",${Number(s) + 1}`)
      expect(flipped).not.toBe(good)
      fs.writeFileSync(catalog, flipped)
      const files = yield* TranscriptFile
      const before = yield* files.bytesRead
      yield* list(dir, "write")
      expect((yield* files.bytesRead) - before).toBe(flipped.length + fs.statSync(path.join(dir, "c.jsonl")).size)
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.live("read-only listings write no index; findMostRecent equals the files' and reads none once indexed", () =>
    Effect.gen(function*() {
      const dir = folder()
      yield* list(dir, "read")
      expect(fs.existsSync(path.join(dir, SessionFiles.CATALOG_NAME))).toBe(false)
      const plainMost = yield* SessionCatalog.findMostRecent(dir)
      yield* list(dir, "write")
      const files = yield* TranscriptFile
      const before = yield* files.bytesRead
      const most = yield* SessionCatalog.findMostRecent(dir)
      expect(Option.getOrNull(most)).toBe(Option.getOrNull(plainMost))
      expect(Option.getOrNull(most)).toBe(path.join(fs.realpathSync(dir), "c.jsonl"))
      expect((yield* files.bytesRead) - before).toBe(catalogSize(dir))
      // the newest file becomes a non-session: skipped (as without the index)
      fs.writeFileSync(path.join(dir, "c.jsonl"), "{\"type\":\"message\"}\n")
      const newest = yield* SessionCatalog.findMostRecent(dir)
      expect(Option.isSome(newest)).toBe(true)
      expect(newest).not.toEqual(most)
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.live(
    "two processes writing the index at once while sessions change: it stays whole and listings stay exact",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        for (let i = 0; i < 40; i++) {
          fs.writeFileSync(path.join(dir, `s${i}.jsonl`), session(`s${String(i).padStart(3, "0")}-x`, 4))
        }
        ageAll(dir)
        const children = [
          start(["test/support/catalogChild.ts", dir, "25"]),
          start(["test/support/catalogChild.ts", dir, "25"])
        ]
        // meanwhile: appends and new files
        for (let i = 0; i < 20; i++) {
          fs.appendFileSync(
            path.join(dir, `s${i}.jsonl`),
            entryLine(`zz${String(i).padStart(6, "0")}`, null, user("more")) + "\n"
          )
          fs.writeFileSync(path.join(dir, `n${i}.jsonl`), session(`n${String(i).padStart(3, "0")}-y`, 2))
          yield* Effect.sleep("20 millis")
        }
        const codes = yield* Effect.promise(() => Promise.all(children.map((c) => c.exited)))
        expect(codes, children.map((c) => c.output).join("\n")).toEqual([0, 0])
        for (const c of children) expect(c.output).toMatch(/done \d+/)
        const text = fs.readFileSync(path.join(dir, SessionFiles.CATALOG_NAME), "utf8")
        expect(CatalogIndex.decode(text)).toBeDefined()
        expect(fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([])
        const final = yield* same(dir)
        expect(final.infos.length).toBe(60)
        ageAll(dir)
        yield* same(dir)
        expect((yield* same(dir)).read).toBe(catalogSize(dir))
      }).pipe(Effect.provide(SessionStore.layerNode)),
    120_000
  )
})
