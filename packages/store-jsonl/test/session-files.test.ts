/**
 * The one rule of session files and side files: every side file the store writes (backups of each
 * label, a rewrite's temporary file, locks, stale locks, repair's removed lines) is classified by
 * its exact shape, every name pi and OpenClaw give sessions is a session; and the catalog,
 * `findMostRecent` and `continueRecent` skip real side files left by real backups and rewrites,
 * even when they are the newest files of the folder.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionCatalog from "../src/SessionCatalog.js"
import * as SessionFiles from "../src/SessionFiles.js"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import * as TranscriptFile from "../src/TranscriptFile.js"
import { headerLine } from "./support/messages.js"

afterAll(cleanupTempRoots)

const session = "2026-03-15T22-40-18-123Z_0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
const millis = Date.parse("2026-12-01T09:15:11.123Z")

describe("SessionFiles", () => {
  it("accepts every name pi and OpenClaw give sessions (spec §6), and look-alikes that are no side file", () => {
    for (
      const name of [
        session,
        "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
        "main.jsonl",
        "a.b_c-d.jsonl",
        "abc-topic-42.jsonl",
        "abc-topic-%F0%9F%98%80%20x.jsonl",
        "notes.backup.jsonl",
        "x.tmp.jsonl",
        "my.lock.jsonl",
        "s.repair-today.jsonl",
        "s.jsonl.backup-2026-12-01T09-15-11-123Z-xyz.jsonl",
        "/some/folder/" + session
      ]
    ) {
      expect(SessionFiles.isSessionFile(name), name).toBe(true)
      expect(SessionFiles.sideFile(name), name).toBeUndefined()
    }
    for (const name of [".hidden.jsonl", ".jsonl", "notes.txt", "sessions.json", "x.jsonl.lock", "x.JSONL"]) {
      expect(SessionFiles.isSessionFile(name), name).toBe(false)
    }
  })

  it("classifies each side file by the name its builder gives it", () => {
    const cases: ReadonlyArray<readonly [string, SessionFiles.SideFile]> = [
      ...["backup", "corrupt", "reset", "repair"].map((label) =>
        [SessionFiles.backupName(session, label, millis, "0a1b2c3d"), { kind: "backup", of: session, label }] as const
      ),
      [SessionFiles.backupName("sessions.json", "corrupt", millis, "0a1b2c3d"), {
        kind: "backup",
        of: "sessions.json",
        label: "corrupt"
      }],
      [`${session}.bak-1234-1764580511123`, { kind: "backup", of: session, label: "bak" }],
      [SessionFiles.temporaryName(session, 4242, 7, "deadbeef"), { kind: "temporary", of: session, pid: 4242 }],
      [SessionFiles.lockName(session), { kind: "lock", of: session }],
      [`${SessionFiles.lockName(session)}.stale-0123abcd`, { kind: "stale-lock", of: session }],
      [SessionFiles.removedLinesName(session, millis), { kind: "removed-lines", of: session }],
      [`${session}.index`, { kind: "index", of: session }],
      ["sessions.json", { kind: "session-index", of: "sessions.json" }],
      ["sessions.json.bak", { kind: "session-index", of: "sessions.json" }]
    ]
    for (const [name, expected] of cases) {
      expect(SessionFiles.sideFile(name), name).toEqual(expected)
      expect(SessionFiles.isSessionFile(name), name).toBe(false)
    }
    expect(SessionFiles.backupName("/d/x.jsonl", "repair", millis, "0a1b2c3d")).toBe(
      "/d/x.jsonl.repair-2026-12-01T09-15-11-123Z-0a1b2c3d.jsonl"
    )
    // a backup of a file whose name does not end in .jsonl still ends in .jsonl: it is recognised too
    expect(SessionFiles.isSessionFile(SessionFiles.backupName("transcript", "repair", millis, "0a1b2c3d"))).toBe(false)
    expect(() => SessionFiles.backupName(session, "Not A Label", millis, "0a1b2c3d")).toThrow(TypeError)
  })

  it("isSessionFile is exactly: *.jsonl, not hidden, no side file (its fast path tests only the side files ending in .jsonl)", () => {
    const names = [
      session,
      SessionFiles.backupName(session, "repair", millis, "0a1b2c3d"),
      `${session}.bak-1234-1764580511123`,
      SessionFiles.temporaryName(session, 4242, 7, "deadbeef"),
      SessionFiles.lockName(session),
      `${SessionFiles.lockName(session)}.stale-0123abcd`,
      SessionFiles.removedLinesName(session, millis),
      SessionFiles.indexName(session),
      "sessions.json",
      "sessions.json.bak",
      SessionFiles.CATALOG_NAME
    ]
    for (const base of names) {
      for (const name of [base, `${base}.jsonl`, `x${base}`, `${base}.jsonl.lock`]) {
        const rule = name.endsWith(".jsonl") && name.length > ".jsonl".length && !name.startsWith(".") &&
          SessionFiles.sideFile(name) === undefined
        expect(SessionFiles.isSessionFile(name), name).toBe(rule)
      }
    }
  })

  it("SessionCatalog.isSessionFileName is the same rule", () => {
    for (const name of [session, SessionFiles.backupName(session, "repair", millis, "0a1b2c3d"), "a.jsonl.lock"]) {
      expect(SessionCatalog.isSessionFileName(name)).toBe(SessionFiles.isSessionFile(name))
    }
  })
})

describe("side files left beside a session (real files)", () => {
  const layer = SessionStore.layerNode as Layer.Layer<SessionStore.Services>

  it.live(
    "real backups of every label, a leftover temporary file and locks are never taken for sessions",
    () =>
      Effect.gen(function*() {
        const files = yield* TranscriptFile.TranscriptFile
        const dir = tempDir()
        const file = path.join(dir, session)
        fs.writeFileSync(file, headerLine("the-session") + "\n" + "{torn")
        fs.utimesSync(file, new Date("2026-01-01"), new Date("2026-01-01"))
        const made: Array<string> = []
        for (const label of ["backup", "corrupt", "reset", "repair"]) {
          // other bytes each time: a backup of bytes already backed up is the existing backup
          fs.appendFileSync(file, "\n{torn")
          fs.utimesSync(file, new Date("2026-01-01"), new Date("2026-01-01"))
          made.push(yield* files.backup(file, { label }))
        }
        // what a rewrite killed half-way leaves: its temporary file (here: a rewrite whose stream fails)
        yield* files.rewrite(file, Stream.concat(Stream.make(headerLine("half") + "\n"), Stream.fail("killed"))).pipe(
          Effect.flip
        )
        const temp = SessionFiles.temporaryName(session, process.pid, 999, "0a1b2c3d")
        fs.writeFileSync(path.join(dir, temp), headerLine("half") + "\n")
        fs.writeFileSync(path.join(dir, SessionFiles.lockName(session)), "{}")
        fs.writeFileSync(path.join(dir, SessionFiles.removedLinesName(session, millis)), "{torn\n")
        // every side file is newer than the session
        const listed = fs.readdirSync(dir)
        expect(listed.length).toBe(8)
        for (const name of listed.filter((n) => n !== session)) {
          expect(SessionFiles.sideFile(name), name).toBeDefined()
          fs.utimesSync(path.join(dir, name), new Date("2026-06-01"), new Date("2026-06-01"))
        }
        expect((yield* SessionCatalog.list("/work/project", dir)).map((info) => info.path)).toEqual([file])
        expect(yield* SessionCatalog.findMostRecent(dir)).toEqual(Option.some(file))
        const resumed = yield* SessionManager.continueRecent("/work/project", dir, {})
        expect(resumed.getSessionFile()).toBe(file)
        expect(resumed.getSessionId()).toBe("the-session")
        expect(made.every((backup) => fs.existsSync(backup))).toBe(true)
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live("a backup label that is not a lower-case word is refused (its name would not be recognised)", () =>
    Effect.gen(function*() {
      const files = yield* TranscriptFile.TranscriptFile
      const dir = tempDir()
      const file = path.join(dir, session)
      fs.writeFileSync(file, headerLine("s") + "\n")
      const error = yield* Effect.flip(files.backup(file, { label: "my backup" }))
      expect(error._tag).toBe("FileSystemError")
      expect(fs.readdirSync(dir)).toEqual([session])
    }).pipe(Effect.provide(layer)))
})
