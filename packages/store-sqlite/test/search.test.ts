/**
 * Search without FTS5's `bm25()` for words, phrases and prefixes: the same hits, scores and
 * snippets as FTS5's full ranking (`ORDER BY rank`, `snippet()`) when every match is ranked; with
 * fewer candidates than matches, the candidates' order is FTS5's order of those candidates; other
 * FTS5 syntax ranked by `bm25()` itself; the tokenizer agrees with the index's.
 */
import type { SearchHit, TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import { Db } from "../src/internal/database.js"
import * as Search from "../src/internal/search.js"
import * as SqliteStore from "../src/SqliteStore.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-sqlite-search-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T10:00:00.000Z", cwd: "/w" })
const message = (id: string, role: string, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: null,
    timestamp: "2026-05-01T10:00:01.000Z",
    message: { role, content: role === "user" ? text : [{ type: "text", text }], timestamp: 1_777_000_000_000 }
  })

// a small corpus where a few words are in most messages (12 sessions × 40 messages)
const vocabulary = ["alpha", "beta", "gamma", "delta", "omega", "zeta", "kappa", "sigma", "tau", "rho", "phi", "psi"]
let state = 7
const random = () => {
  state = (state * 1103515245 + 12345) % 2147483648
  return state / 2147483648
}
const sentence = () =>
  Array.from({ length: 4 + Math.floor(random() * 20) }, () => vocabulary[Math.floor(random() ** 2 * 12)]!).join(
    random() < 0.2 ? ". " : " "
  ) + (random() < 0.5 ? "." : "")
const file = path.join(root, "corpus.db")
const sessions = Array.from({ length: 12 }, (_, s) => [
  header(`s${s}`),
  ...Array.from({ length: 40 }, (_, i) => message(`m${s}-${i}`, i % 2 === 0 ? "user" : "assistant", sentence()))
])

const withStore = <A, E>(f: (store: TranscriptStoreShape) => Effect.Effect<A, E>, searchCandidates?: number) =>
  Effect.scoped(Effect.flatMap(SqliteStore.make(searchCandidates === undefined ? {} : { searchCandidates }), f))

const filled = withStore((store) =>
  Effect.forEach(
    sessions,
    (texts, s) => store.exclusive(SqliteStore.ref(file, `s${s}`), (held) => held.create(texts)),
    { discard: true }
  )
).pipe(Effect.cached, Effect.runSync)

const search = (text: string, searchCandidates?: number, limit = 20) =>
  Effect.zipRight(
    filled,
    withStore((store) => store.search!({ text, location: `sqlite:${file}`, limit }), searchCandidates)
  )

/** FTS5's own ranking: every match by `bm25()`, ties in storage order, with `snippet()`. */
const fts5 = (text: string, limit = 20) => {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(
      `SELECT entry_id, -bm25(messages_fts) AS score, snippet(messages_fts, 0, '[', ']', '…', 12) AS snippet
       FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank, rowid LIMIT ?`
    ).all(text, limit) as Array<{ entry_id: string; score: number; snippet: string }>
  } finally {
    db.close()
  }
}

const same = (hits: ReadonlyArray<SearchHit>, expected: ReturnType<typeof fts5>) => {
  expect(hits.map((h) => h.entryId)).toEqual(expected.map((e) => e.entry_id))
  hits.forEach((hit, i) => {
    expect(hit.score).toBeCloseTo(expected[i]!.score, 9)
    expect(hit.snippet).toBe(expected[i]!.snippet)
  })
}

describe("search", () => {
  it("parses words, quoted phrases, prefixes and AND; leaves any other syntax to FTS5", () => {
    expect(Search.parse("Alpha beta")?.map((p) => p.query)).toEqual(["\"alpha\"", "\"beta\""])
    expect(Search.parse("\"alpha  Beta\" AND gam*")?.map((p) => p.query)).toEqual(["\"alpha beta\"", "\"gam\"*"])
    expect(Search.parse("\"say \"\"hi\"\"\"")?.map((p) => p.tokens)).toEqual([["say", "hi"]])
    expect(Search.parse("foo_bar")?.map((p) => p.tokens)).toEqual([["foo", "bar"]])
    expect(Search.parse("and or")?.map((p) => p.query)).toEqual(["\"and\"", "\"or\""])
    for (
      const other of ["a OR b", "NOT a", "a NOT b", "NEAR(a b)", "(a b)", "text:a", "^a", "a + b", "AND a", "a AND"]
    ) {
      expect(Search.parse(other)).toBeUndefined()
    }
    expect(Search.parse("\"unbalanced")).toBeUndefined()
    expect(Search.parse("\"--\"")).toBeUndefined()
  })

  it("tokenizes as the index's unicode61 tokenizer with diacritics removed", () => {
    const db = new Database(":memory:")
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`)
    const text = "Café cafe\u0301 naïve ÉCOLE straße Ωmega x_y 3.14 日本語 ½ émoji😀ok Łódź don't CamelCase"
    db.prepare("INSERT INTO t VALUES (?)").run(text)
    const expected = db.prepare("SELECT term FROM v ORDER BY offset").pluck().all()
    db.close()
    expect(Search.tokenize(text)).toEqual(expected)
    expect(Search.tokenize("Hello, World: 42")).toEqual(["hello", "world", "42"])
  })

  it.live("words, pairs, quoted phrases, prefixes and AND: every match ranked gives FTS5's hits, scores and snippets", () =>
    Effect.gen(function*() {
      for (
        const query of [
          "psi",
          "phi psi",
          "\"alpha beta\"",
          "\"beta alpha alpha\"",
          "ps*",
          "alpha AND \"rho phi\"",
          "alpha"
        ]
      ) {
        const hits = yield* search(query, 1_000_000)
        expect(hits.length).toBeGreaterThan(0)
        same(hits, fts5(query))
        for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score)
      }
    }))

  it.live("words ranked by bm25's formula here (not bm25()): FTS5's order and scores when every match is ranked", () =>
    Effect.gen(function*() {
      yield* filled
      const db = new Db(file, true, 5000).ready()
      try {
        for (const query of ["psi", "phi psi", "alpha", "alpha AND beta gamma"]) {
          const top = Search.top(db.reader, Search.parse(query)!, query, 20, 1_000_000)
          const expected = fts5(query)
          expect(
            top.map(([rowid]) =>
              db.handle.prepare("SELECT c2 FROM messages_fts_content WHERE id = ?").pluck().get(rowid)
            )
          )
            .toEqual(expected.map((e) => e.entry_id))
          top.forEach(([, score], i) => expect(-score).toBeCloseTo(expected[i]!.score, 9))
          // bm25() ranks them when each word is in fewer messages than BM25_WORDS × the candidates
          expect(Search.cheapForBm25(db.reader, Search.parse(query)!, 1_000_000)).toBe(true)
          expect(Search.cheapForBm25(db.reader, Search.parse(query)!, 5)).toBe(false)
        }
        expect(Search.cheapForBm25(db.reader, Search.parse("\"alpha beta\"")!, 1_000_000)).toBe(false)
      } finally {
        db.close()
      }
    }))

  it.live("a quoted phrase matches its words in order only; a prefix matches every word it starts", () =>
    Effect.gen(function*() {
      const db = path.join(root, "phrases.db")
      yield* withStore((store) =>
        store.exclusive(SqliteStore.ref(db, "p"), (held) =>
          held.create([
            header("p"),
            message("in-order", "user", "the quick brown fox"),
            message("reversed", "user", "the brown quick fox"),
            message("apart", "user", "quick and brown"),
            message("prefixes", "user", "brownish quicksand")
          ]))
      )
      const ids = (text: string) =>
        withStore((store) => store.search!({ text, location: `sqlite:${db}` })).pipe(
          Effect.map((hits) => hits.map((h) => h.entryId).sort())
        )
      expect(yield* ids("\"quick brown\"")).toEqual(["in-order"])
      expect(yield* ids("quick brown")).toEqual(["apart", "in-order", "reversed"])
      expect(yield* ids("quick* brown*")).toEqual(["apart", "in-order", "prefixes", "reversed"])
      const [phrase] = yield* withStore((store) => store.search!({ text: "\"quick brown\"", location: `sqlite:${db}` }))
      expect(phrase!.snippet).toBe("the [quick brown] fox")
    }))

  it.live("with fewer candidates than matches, the latest matches only, in FTS5's order of them", () =>
    Effect.gen(function*() {
      for (const query of ["alpha", "\"alpha beta\""]) {
        const capped = yield* search(query, 15, 10)
        const db = new Database(file, { readonly: true })
        // FTS5's bm25 of the same 15 candidates (one phrase: its order does not depend on the IDF)
        const expected = db.prepare(
          `SELECT entry_id FROM (
             SELECT rowid, entry_id, bm25(messages_fts) AS score FROM messages_fts WHERE messages_fts MATCH ?
             ORDER BY rowid DESC LIMIT 15
           ) ORDER BY score, rowid LIMIT 10`
        ).pluck().all(query)
        const all = db.prepare("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?").pluck().get(query)
        db.close()
        expect(all).toBeGreaterThan(Search.BM25_WORDS * 15)
        expect(capped.map((h) => h.entryId)).toEqual(expected)
      }
    }))

  it.live("other FTS5 syntax (OR, NOT, NEAR, parentheses) is ranked by FTS5's bm25() itself", () =>
    Effect.gen(function*() {
      for (const query of ["psi OR phi", "alpha NOT beta", "NEAR(rho phi, 2)", "(psi OR phi) AND tau"]) {
        same(yield* search(query, 1_000_000), fts5(query))
      }
    }))

  it.live("text beyond ASCII: found, its snippet made by FTS5", () =>
    Effect.gen(function*() {
      const db = path.join(root, "unicode.db")
      yield* withStore((store) =>
        store.exclusive(SqliteStore.ref(db, "u"), (held) =>
          held.create([
            header("u"),
            message("u1", "user", "Le café est très naïve, dit l'École"),
            message("u2", "user", "cafe")
          ]))
      )
      const hits = yield* withStore((store) => store.search!({ text: "cafe naive", location: `sqlite:${db}` }))
      expect(hits.map((h) => h.entryId)).toEqual(["u1"])
      expect(hits[0]!.snippet).toBe("Le [café] est très [naïve], dit l'École")
    }))
})
