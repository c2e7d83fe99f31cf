/**
 * The bounded open (`SessionManager.resume`) through the sidecar index gives exactly the full
 * open's leaf, name, labels, header and context: for every fixture (reference and differential),
 * after random appends, branches, labels, names and compactions by the resumed manager and by
 * foreign writers (another manager, raw appends as pi makes them, a second process), and whatever
 * is done to the index (truncated, bit-flipped, another session's, left behind after a rewrite).
 */
import { Messages } from "@branchlog/session-core/testing"
import * as MemoryStore from "@branchlog/session-store/MemoryStore"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { ResumeChecks } from "@branchlog/session-store/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import * as SessionFiles from "../src/SessionFiles.js"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, harnesses, nodeHarness } from "../src/testing/Harness.js"
import { start } from "./support/children.js"

const { answers, prng } = ResumeChecks

afterAll(cleanupTempRoots)

const here = path.dirname(fileURLToPath(import.meta.url))
const writer = path.join(here, "fixtures", "writer-child.ts")

type Requirements = StoreServices

const { assistant, user } = Messages

const all = fixtures()

for (const harness of harnesses) {
  describe(`sidecar index (${harness.name})`, () => {
    it.live("every fixture: the bounded open equals the full open, first (building the index) and after", () => {
      const { dir, ext, layer } = harness.make()
      return Effect.gen(function*() {
        expect(all.length).toBeGreaterThanOrEqual(10)
        let boundedCount = 0
        for (const fixture of all) {
          const file = path.join(dir, `${fixture.name}.jsonl`)
          ext.write(file, fixture.bytes)
          for (let round = 0; round < 3; round++) {
            const { bounded, got, want } = yield* ResumeChecks.both(file)
            expect(got, `${fixture.name} round ${round}`).toEqual(want)
            if (round === 2 && bounded) boundedCount++
          }
        }
        // most fixtures are answered from the index (legacy versions and side branches are not)
        expect(boundedCount).toBeGreaterThan(all.length / 2)
        expect(ext.list(dir).some((name) => SessionFiles.sideFile(name)?.kind === "index")).toBe(true)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    }, 120_000)

    it.live(
      "random appends, branches, labels, names and compactions, by the resumed manager and by foreign writers",
      () => {
        const { dir, ext, layer } = harness.make()
        return Effect.gen(function*() {
          // the raw rows as pi appends them: no index, no lock
          const walk = yield* ResumeChecks.randomWalk({
            location: dir,
            seeds: 6,
            steps: 60,
            rawAppend: (file, _id, row) => Effect.sync(() => ext.append(file, row + "\n"))
          })
          const [first] = walk.mismatches
          if (first) expect(first.got, `seed ${first.seed} step ${first.step} (${first.of})`).toEqual(first.want)
          expect(walk.mismatches).toEqual([])
          expect(walk.steps).toBe(360)
        }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
      },
      300_000
    )

    it.live("appends, labels, names and branches on the path work at once on a bounded session", () => {
      const { dir, layer } = harness.make()
      return Effect.gen(function*() {
        const created = yield* SessionManager.create("/work", dir, { eagerFlush: true })
        const file = created.getSessionFile()!
        for (let i = 0; i < 30; i++) {
          yield* created.appendMessage(user(`u${i}`))
          yield* created.appendMessage(assistant(`a${i}`))
        }
        const kept = created.getBranch()[50]!.id
        yield* created.appendCompaction("the start", kept, 10)
        yield* created.appendMessage(user("after"))
        yield* SessionManager.resume(file) // builds the index
        const sm = yield* SessionManager.resume(file)
        expect(sm.isBounded()).toBe(true)
        expect(sm.getBoundedState()!.entries.length).toBeLessThan(20)
        const onPath = sm.getBoundedState()!.entries[3]!.id
        const afterCompaction = sm.getLeafId()!
        yield* sm.appendMessage(assistant("more"))
        yield* sm.appendLabelChange(onPath, "here")
        yield* sm.appendSessionInfo("named")
        yield* sm.branch(afterCompaction)
        yield* sm.appendMessage(user("branched"))
        expect(sm.isBounded()).toBe(true)
        const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
        expect(answers(sm)).toEqual(answers(full))
        // the whole tree is not loaded by a synchronous read: it throws until `loadFull`
        expect(() => sm.getTree()).toThrow(SessionManager.SessionNotLoadedError)
        expect(sm.isBounded()).toBe(true)
        // a branch behind the compaction loads the rest first (the context there needs it)
        yield* sm.branch(onPath)
        expect(sm.isBounded()).toBe(false)
        expect(sm.getTree().length).toBe(full.getTree().length)
        expect(sm.getEntries().length).toBe(full.getEntries().length)
        const again = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
        expect(answers(sm)).toEqual(answers(again))
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })

    it.live("a branch behind a later compaction, to a path whose compaction keeps an entry not loaded", () => {
      // found by the resume differential (seed 250): the context at the new leaf needs rows before the loaded path
      const { dir, layer } = harness.make()
      return Effect.gen(function*() {
        const created = yield* SessionManager.create("/work", dir, { eagerFlush: true })
        const file = created.getSessionFile()!
        for (let i = 0; i < 6; i++) yield* created.appendMessage(i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`))
        const keptEarly = created.getBranch()[2]!.id
        const first = yield* created.appendCompaction("first", keptEarly, 10)
        yield* created.appendMessage(user("after first"))
        const between = yield* created.appendMessage(assistant("between"))
        yield* created.appendCompaction("second", first, 10) // keeps the first compaction: the loaded path starts there
        yield* created.appendMessage(user("after second"))
        yield* SessionManager.resume(file) // builds the index
        const sm = yield* SessionManager.resume(file, undefined, undefined, { eagerFlush: true })
        expect(sm.isBounded()).toBe(true)
        yield* sm.branch(between)
        yield* sm.appendMessage(user("on the old branch"))
        const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
        expect(full.buildSessionContext().messages.length).toBe(8)
        expect(answers(sm)).toEqual(answers(full))
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })

    it.live("fuzz: a truncated, bit-flipped, swapped or left-behind index never changes an answer", () => {
      const { dir, ext, layer } = harness.make()
      return Effect.gen(function*() {
        const random = prng(42)
        const make = (name: string, n: number) =>
          Effect.gen(function*() {
            const sm = yield* SessionManager.create("/work", dir, { eagerFlush: true })
            for (let i = 0; i < n; i++) {
              yield* sm.appendMessage(user(`${name} u${i}`))
              yield* sm.appendMessage(assistant(`${name} a${i}`))
              const branch = sm.getBranch()
              if (i % 7 === 6) {
                yield* sm.appendCompaction(`${name} c${i}`, branch[Math.max(0, branch.length - 6)]!.id, 5)
              }
              if (i % 5 === 4) yield* sm.branch(branch[Math.max(0, branch.length - 3)]!.id)
            }
            yield* sm.appendLabelChange(sm.getBranch()[1]!.id, `${name} label`)
            yield* sm.appendSessionInfo(name)
            const file = sm.getSessionFile()!
            yield* SessionManager.resume(file)
            // a resumed writer's appends: the index gets an update log (fuzzed with the rest)
            const writer = yield* SessionManager.resume(file)
            yield* writer.appendMessage(user(`${name} logged`))
            yield* writer.withWriteLock(Effect.gen(function*() {
              yield* writer.appendMessage(assistant(`${name} logged reply`))
              yield* writer.appendLabelChange(writer.getLeafId()!, `${name} logged label`)
            }))
            return file
          })
        const a = yield* make("a", 40)
        const b = yield* make("b", 25)
        const goodA = ext.read(SessionFiles.indexName(a))!
        const goodB = ext.read(SessionFiles.indexName(b))!
        // both with an update log after the base (records start with "BLU ")
        expect(goodA.includes("\nBLU ") && goodB.includes("\nBLU ")).toBe(true)
        const bytesA = ext.read(a)!
        let cases = 0
        for (let round = 0; round < 120; round++) {
          ext.replace(a, bytesA)
          const kind = round % 5
          let index: Buffer
          if (kind === 0) index = goodA.subarray(0, Math.floor(random() * goodA.length))
          else if (kind === 1) {
            index = Buffer.from(goodA)
            const at = Math.floor(random() * index.length)
            index[at] = index[at]! ^ (1 << Math.floor(random() * 8))
          } else if (kind === 2) index = goodB
          else if (kind === 3) {
            // the session rewritten by another tool (same size: a byte changed inside a line's text)
            index = goodA
            const changed = Buffer.from(bytesA)
            const at = changed.indexOf("a u1", Math.floor(random() * changed.length / 2))
            if (at > 0) changed[at] = "b".charCodeAt(0)
            ext.write(a, changed)
          } else {
            // truncated by another tool, then appended to
            index = goodA
            const cut = bytesA.lastIndexOf(0x0a, Math.floor(bytesA.length * (0.3 + random() * 0.6)))
            ext.replace(a, bytesA.subarray(0, cut + 1))
            ext.append(
              a,
              JSON.stringify({ type: "session_info", id: "ffffffff", parentId: null, timestamp: "x", name: "z" }) + "\n"
            )
          }
          ext.write(SessionFiles.indexName(a), index)
          const { got, want } = yield* ResumeChecks.both(a)
          expect(got, `round ${round} kind ${kind}`).toEqual(want)
          // a writable resume repairs the index; then it answers again
          yield* SessionManager.resume(a)
          const again = yield* ResumeChecks.both(a)
          expect(again.got, `round ${round} kind ${kind} (after rebuild)`).toEqual(again.want)
          cases++
        }
        expect(cases).toBe(120)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    }, 300_000)
  })
}

describe("sidecar index: who writes it", () => {
  it.live("a read-only resume uses a valid index and writes none; a writable one builds it; a store without loadActive opens fully", () => {
    const { dir, ext, layer } = nodeHarness.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/work", dir, { eagerFlush: true })
      for (let i = 0; i < 10; i++) yield* sm.appendMessage(i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`))
      const file = sm.getSessionFile()!
      const readOnly = yield* SessionManager.resume(file, undefined, undefined, { readOnly: true })
      expect(readOnly.isBounded()).toBe(false)
      expect(ext.list(dir)).toEqual([path.basename(file)])
      yield* SessionManager.resume(file)
      expect(ext.list(dir)).toEqual([path.basename(file), path.basename(SessionFiles.indexName(file))])
      const index = ext.read(SessionFiles.indexName(file))!
      yield* sm.appendMessage(user("one more"))
      const again = yield* SessionManager.resume(file, undefined, undefined, { readOnly: true })
      expect(again.isBounded()).toBe(true)
      expect(again.buildSessionContext().messages.length).toBe(11)
      // caught up in memory: the read-only resume left the index as it was
      expect(ext.read(SessionFiles.indexName(file))!.equals(index)).toBe(true)
    }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
  })

  it.effect("a store without loadActive (the memory row store): resume is a full open", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.create("/work", "/loc", { eagerFlush: true })
      yield* sm.appendMessage(user("hello"))
      yield* sm.appendMessage(assistant("hi"))
      const resumed = yield* SessionManager.resume(sm.getSessionRef()!)
      expect(resumed.isBounded()).toBe(false)
      expect(resumed.buildSessionContext()).toEqual(sm.buildSessionContext())
    }).pipe(Effect.provide(MemoryStore.layer())))
})

describe("sidecar index (a second process)", () => {
  it.live("a second process appending keeps the bounded open equal to the full open", () => {
    const { dir, layer } = nodeHarness.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/work", dir, { eagerFlush: true })
      for (let i = 0; i < 20; i++) {
        yield* sm.appendMessage(user(`u${i}`))
        yield* sm.appendMessage(assistant(`a${i}`))
      }
      yield* sm.appendCompaction("early", sm.getBranch()[30]!.id, 5)
      const file = sm.getSessionFile()!
      yield* SessionManager.resume(file)
      const child = start([writer, file, "w0", "held", "60"])
      yield* Effect.promise(() => child.exited)
      expect(child.output).toContain("done")
      const { bounded, got, want } = yield* ResumeChecks.both(file)
      expect(got).toEqual(want)
      expect(bounded).toBe(true)
      const resumed = yield* SessionManager.resume(file)
      yield* resumed.appendMessage(user("after the child"))
      const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
      expect(answers(resumed)).toEqual(answers(full))
    }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
  }, 120_000)
})
