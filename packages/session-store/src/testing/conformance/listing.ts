/**
 * The listing contract: every backend lists a session with the same summary, field for field, as
 * `SessionListing.infoReader` reads from its rows (the one definition of a listing): the whole
 * first user message, the text of every user and assistant message (not a preview), the name of
 * the latest `session_info`, the count of every `message` entry, the latest message time, the
 * fork's parent. Checked on rows written through a manager (a store keeping its summary row by row)
 * and on rows another tool wrote, before and after appends and through an independent instance.
 */
import { Line } from "@branchlog/session-core"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SessionListing from "../../SessionListing.js"
import type { SessionInfo } from "../../TranscriptStore.js"
import type { Listed, Place, Ref, Subject } from "./Backend.js"
import type { Group } from "./support.js"
import { assistant, entryRow, headerRow, raw, test, toolResult, user } from "./support.js"

/** Every field of a summary a listing promises (the path is the backend's own way of naming). */
const fields = (info: SessionInfo) => ({
  id: info.id,
  cwd: info.cwd,
  name: info.name,
  parentSessionPath: info.parentSessionPath,
  created: info.created.getTime(),
  modified: info.modified.getTime(),
  messageCount: info.messageCount,
  firstMessage: info.firstMessage,
  allMessagesText: info.allMessagesText
})

/** The summary `infoReader` reads from a session's stored rows. */
const expected = <R>(subject: Subject<R>, ref: Ref) =>
  Effect.gen(function*() {
    const rows = yield* raw(subject, ref)
    const reader = SessionListing.infoReader()
    for (let i = 0; i < rows.length; i++) {
      if (!reader.push(Line.parse(rows[i]!, i + 1, 0))) break
    }
    return Option.getOrThrow(reader.result(ref, 0))
  })

/** The one listed session of `ref` in `place`. */
const listedOf = <R>(subject: Subject<R>, place: Place, cwd: string, ref: Ref) =>
  Effect.map(subject.list(place, cwd), (listed: ReadonlyArray<Listed>) => {
    const found = listed.filter((l) => l.ref === ref)
    expect(found).toHaveLength(1)
    return found[0]!.info
  })

/** Checks the listing of `ref` against its rows, here and through an independent instance. */
const conforms = <R>(subject: Subject<R>, place: Place, cwd: string, ref: Ref) =>
  Effect.gen(function*() {
    const want = fields(yield* expected(subject, ref))
    for (
      const got of [
        yield* listedOf(subject, place, cwd, ref),
        yield* subject.independent(listedOf(subject, place, cwd, ref))
      ]
    ) {
      // the lengths first: a failure says how much is missing, not two pages of text
      expect([got.firstMessage.length, got.allMessagesText.length]).toEqual([
        want.firstMessage.length,
        want.allMessagesText.length
      ])
      expect(fields(got)).toEqual(want)
    }
  })

/** A text of `n` characters, words of one letter each (`seed` picks the letter). */
const text = (n: number, seed: string) => `${seed} `.repeat(Math.ceil(n / 2)).slice(0, n)

/** The listing cases. */
export const group: Group = {
  name: "listing contract",
  cases: [
    test("a session written through a manager is listed with every field its rows give, long texts whole", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const cwd = "/home/u/contract"
        const sm = yield* s.create(place, cwd)
        yield* sm.appendMessage({ ...user(text(3_000, "q")), timestamp: 1_000 })
        yield* sm.appendMessage({ ...assistant(text(5_000, "a")), timestamp: 2_000 })
        yield* sm.appendMessage(toolResult(text(400, "t")))
        yield* sm.appendSessionInfo("first name")
        yield* sm.appendMessage({
          ...user(""),
          content: [{ type: "text", text: "two" }, { type: "image", data: "AAAA", mimeType: "image/png" }, {
            type: "text",
            text: "blocks"
          }],
          timestamp: 3_000
        } as never)
        yield* sm.appendSessionInfo("  second name  ")
        yield* conforms(s, place, cwd, s.refOf(sm))
        // the summary kept current by later appends, past any preview length
        for (let i = 0; i < 20; i++) {
          yield* sm.appendMessage({ ...user(text(700, `u${i}`)), timestamp: 4_000 + i })
        }
        yield* sm.appendMessage({ ...assistant(text(200, "z")), timestamp: 500 })
        yield* conforms(s, place, cwd, s.refOf(sm))
        const listed = yield* listedOf(s, place, cwd, s.refOf(sm))
        expect(listed.allMessagesText.length).toBeGreaterThan(20_000)
        expect(listed.firstMessage.length).toBe(3_000)
        expect(listed.name).toBe("second name")
      })),
    test("a session another tool wrote is listed as its rows say: odd rows, long first message, a fork's parent", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const rows = [
          JSON.stringify({
            type: "session",
            version: 3,
            id: "contract-1",
            timestamp: "2026-05-01T09:00:00.000Z",
            cwd: "/work/project",
            parentSession: "/elsewhere/parent.jsonl"
          }),
          entryRow("c0000001", null, { ...assistant("an answer before any question"), timestamp: 1_000 }),
          "{\"type\":\"future_kind\",\"id\":\"c0000002\",\"parentId\":\"c0000001\",\"note\":\"kept\"}",
          "{not json",
          entryRow("c0000003", "c0000001", { ...user(text(2_345, "f")), timestamp: 2_000 }),
          JSON.stringify({
            type: "session_info",
            id: "c0000004",
            parentId: "c0000003",
            timestamp: "2026-05-01T09:00:02.000Z",
            name: "   "
          }),
          entryRow("c0000005", "c0000004", { ...user("later"), timestamp: 1_500 })
        ]
        const ref = yield* s.seed(place, "contract", rows)
        yield* conforms(s, place, "/work/project", ref)
        yield* s.foreignAppend(ref, [
          entryRow("c0000006", "c0000005", { ...assistant(text(9_000, "g")), timestamp: 9_000 })
        ])
        yield* conforms(s, place, "/work/project", ref)
      })),
    test("a session with a header and no messages is listed with no messages and the header's time", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = yield* s.seed(place, "empty", [headerRow("contract-empty")])
        yield* conforms(s, place, "/work/project", ref)
      }))
  ]
}
