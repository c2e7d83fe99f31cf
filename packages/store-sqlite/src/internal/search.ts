/**
 * The ranking of a search without FTS5's `bm25()`: `bm25()` computes each phrase's document
 * frequency by reading every match of the phrase in the whole index (all 734,263 documents of a
 * word in most messages, or the position lists of every document holding both words of a
 * phrase) on each query, which is most of a common query's cost. Here a query of the simple
 * shapes (words, `"phrases"`, `prefix*`, joined by spaces or `AND`) is ranked with the same
 * formula (k1 = 1.2, b = 0.75, the index's row count and average length, each row's length from
 * `%_docsize`), the frequency of each phrase in a candidate counted on its text, and each
 * phrase's document frequency counted over at most `candidates` of its matches, the most recent:
 * exact when it has no more, else estimated from how densely they fill the newest part of the
 * index. Other queries (`OR`, `NOT`, `NEAR`, parentheses, column filters, `^`) return
 * `undefined` from {@link parse}: the caller ranks them with `bm25()`.
 */

/** One phrase of a simple query. */
export interface Phrase {
  /** Its tokens, folded as the index folds them (the last a prefix when `prefix`). */
  readonly tokens: ReadonlyArray<string>
  readonly prefix: boolean
  /** The phrase alone as an FTS5 query. */
  readonly query: string
}

const isBareword = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 ||
  code === 26 || code > 127

const KEYWORDS = new Set(["OR", "NOT", "NEAR"])

/**
 * The phrases of a query made of words and `"phrases"` (each may end in `*`), joined by spaces
 * or `AND`; `undefined` for any other FTS5 syntax (or a phrase without tokens), left to FTS5.
 */
export const parse = (query: string): Array<Phrase> | undefined => {
  const phrases: Array<Phrase> = []
  let afterAnd = true // no AND first, none twice in a row
  let i = 0
  while (i < query.length) {
    const code = query.charCodeAt(i)
    if (code === 32 || code === 9 || code === 10 || code === 13) {
      i++
      continue
    }
    let text: string
    if (code === 34) {
      text = ""
      i++
      for (;;) {
        const end = query.indexOf("\"", i)
        if (end < 0) return undefined
        text += query.slice(i, end)
        i = end + 1
        if (query.charCodeAt(i) !== 34) break
        text += "\""
        i++
      }
    } else if (isBareword(code)) {
      const start = i
      while (i < query.length && isBareword(query.charCodeAt(i))) i++
      text = query.slice(start, i)
      if (KEYWORDS.has(text)) return undefined
      if (text === "AND") {
        if (afterAnd) return undefined
        afterAnd = true
        continue
      }
    } else {
      return undefined
    }
    const prefix = query.charCodeAt(i) === 42
    if (prefix) i++
    if (i < query.length && !/\s/.test(query[i]!)) return undefined
    const tokens = tokenize(text)
    if (tokens.length === 0) return undefined
    phrases.push({ tokens, prefix, query: `"${tokens.join(" ")}"${prefix ? "*" : ""}` })
    afterAnd = false
  }
  return phrases.length === 0 || afterAnd ? undefined : phrases
}

const NON_ASCII = /[^\x00-\x7f]/
const MARKS = /\p{M}/gu
const TOKENS = /[\p{L}\p{N}\p{Co}]+/gu

/**
 * The tokens of a text as the index's tokenizer (`unicode61 remove_diacritics 2`) makes them:
 * runs of letters and digits, lower case, diacritics removed (beyond ASCII by Unicode
 * decomposition, which agrees with FTS5's tables for the scripts tried; a disagreement changes
 * a score, never which messages match: FTS5 matches).
 */
export const tokenize = (text: string): Array<string> => {
  if (NON_ASCII.test(text)) {
    return text.normalize("NFD").replace(MARKS, "").toLowerCase().match(TOKENS) ?? []
  }
  const out: Array<string> = []
  let start = -1
  let lower = true
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0
    const letter = c >= 97 && c <= 122
    const upper = c >= 65 && c <= 90
    if (letter || upper || (c >= 48 && c <= 57)) {
      if (start < 0) {
        start = i
        lower = true
      }
      if (upper) lower = false
    } else if (start >= 0) {
      const token = text.slice(start, i)
      out.push(lower ? token : token.toLowerCase())
      start = -1
    }
  }
  return out
}

/** How many times `phrase` occurs in `tokens` (overlapping occurrences each count, as in FTS5). */
export const occurrences = (tokens: ReadonlyArray<string>, phrase: Phrase): number => {
  const want = phrase.tokens
  const last = want.length - 1
  let n = 0
  outer: for (let j = 0; j + last < tokens.length; j++) {
    for (let k = 0; k < last; k++) if (tokens[j + k] !== want[k]) continue outer
    const t = tokens[j + last]!
    if (phrase.prefix ? t.startsWith(want[last]!) : t === want[last]) n++
  }
  return n
}

/** The SQLite varints of a blob (FTS5's averages record: rows, then the tokens of each column). */
export const varints = (blob: Uint8Array): Array<number> => {
  const out: Array<number> = []
  let i = 0
  while (i < blob.length) {
    let v = 0
    for (let k = 0; k < 9 && i < blob.length; k++) {
      const c = blob[i++]!
      if (k === 8) {
        v = v * 256 + c
        break
      }
      v = v * 128 + (c & 0x7f)
      if ((c & 0x80) === 0) break
    }
    out.push(v)
  }
  return out
}

/** FTS5's inverse document frequency of a phrase in `hits` of `rows` documents (floored at 1e-6). */
export const idf = (rows: number, hits: number): number => {
  const value = Math.log((rows - hits + 0.5) / (hits + 0.5))
  return value <= 0 ? 1e-6 : value
}

/** FTS5's `bm25()` of a row of `length` tokens: negative, lower is better. */
export const bm25 = (
  idfs: ReadonlyArray<number>,
  frequencies: ReadonlyArray<number>,
  length: number,
  averageLength: number
): number => {
  const k1 = 1.2
  const b = 0.75
  let score = 0
  for (let i = 0; i < idfs.length; i++) {
    const f = frequencies[i]!
    score += idfs[i]! * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * length / averageLength)))
  }
  return -1.0 * score
}

/** What {@link top} reads from the database. */
export interface Reader {
  /** FTS5's averages record (`%_data` row 1): rows, then each column's tokens; `undefined` when empty. */
  readonly averages: () => Uint8Array | undefined
  /** The `limit` matches of `query` last in storage order, newest first: rowid and text. */
  readonly candidates: (query: string, limit: number) => Array<[rowid: number, text: string]>
  /** How many of the `limit` matches of `query` last in storage order there are, and the oldest one's rowid. */
  readonly count: (query: string, limit: number) => [count: number, oldest: number | null]
  /**
   * The share of the database's rows at or after `rowid` (in storage order), from the sessions'
   * row counts: how much of the index the matches down to `rowid` span.
   */
  readonly share: (rowid: number) => number
}

/** A word in fewer than this many times `candidates` messages is ranked by `bm25()` (see {@link cheapForBm25}). */
export const BM25_WORDS = 10

/**
 * Whether FTS5's `bm25()` ranks a simple query more cheaply: every phrase one word (no prefix)
 * in fewer than `BM25_WORDS × candidates` messages, so that its document frequencies read few
 * matches (and FTS5 ranks the candidates without reading their texts).
 */
export const cheapForBm25 = (reader: Reader, phrases: ReadonlyArray<Phrase>, candidates: number): boolean =>
  phrases.every((phrase) => phrase.tokens.length === 1 && !phrase.prefix) &&
  phrases.every((phrase) => reader.count(phrase.query, BM25_WORDS * candidates)[0] < BM25_WORDS * candidates)

/**
 * The best `limit` of the `candidates` matches of a simple query last in storage order, by
 * FTS5's bm25 formula (best first, ties in storage order), as rowid, score (negative, as
 * `bm25()` gives it) and text.
 */
export const top = (
  reader: Reader,
  phrases: ReadonlyArray<Phrase>,
  query: string,
  limit: number,
  candidates: number
): Array<[rowid: number, score: number, text: string]> => {
  const rows = reader.candidates(query, candidates)
  const stats = reader.averages()
  if (rows.length === 0 || stats === undefined) return []
  const [total = 0, ...columns] = varints(stats)
  let tokens = 0
  for (const n of columns) tokens += n
  const averageLength = tokens / total
  // each phrase's document frequency over at most `candidates` of its latest matches: exact when
  // it has no more; else their number over the share of the database they span
  const frequency = (count: number, oldest: number | null) => {
    if (count < candidates || oldest === null) return count
    const share = reader.share(oldest)
    return share > 0 ? Math.min(total, Math.round(count / share)) : total
  }
  const seen = new Map<string, number>()
  const idfs = phrases.map((phrase) => {
    let hits = seen.get(phrase.query)
    if (hits === undefined) {
      hits = phrases.length === 1
        ? frequency(rows.length, rows[rows.length - 1]![0])
        : frequency(...reader.count(phrase.query, candidates))
      seen.set(phrase.query, hits)
    }
    return idf(total, hits)
  })
  const frequencies = phrases.map(() => 0)
  const scored: Array<[rowid: number, score: number, text: string]> = []
  for (const [rowid, text] of rows) {
    // the row's length is its tokens (what `%_docsize` holds, without reading it)
    const words = tokenize(text)
    for (let i = 0; i < phrases.length; i++) frequencies[i] = occurrences(words, phrases[i]!)
    scored.push([rowid, bm25(idfs, frequencies, words.length, averageLength), text])
  }
  scored.sort((a, b) => a[1] - b[1] || a[0] - b[0])
  return scored.slice(0, limit)
}

/** How many tokens a snippet shows (as `snippet(…, 12)`). */
export const SNIPPET_TOKENS = 12

/**
 * A snippet of an ASCII text as FTS5's `snippet(fts, 0, '[', ']', '…', 12)` makes it (the same
 * choice of window: each occurrence's 12 tokens scored 1000 for each phrase first seen in them
 * and 1 for each further occurrence, then centred on the occurrences; a window from the start of
 * the sentence holding the occurrence scored 100 more, 120 from the text's start), each
 * occurrence (overlapping ones merged) in `[` `]`, `…` where the text is cut. `undefined` for
 * other text (its offsets are not those of the folded tokens): FTS5 makes that snippet.
 */
export const snippet = (text: string, phrases: ReadonlyArray<Phrase>): string | undefined => {
  if (NON_ASCII.test(text)) return undefined
  const starts: Array<number> = []
  const ends: Array<number> = []
  const words: Array<string> = []
  const sentences: Array<number> = [] // tokens that start a sentence (after ". " or ": ")
  let start = -1
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i
    } else if (start >= 0) {
      if (words.length === 0) sentences.push(0)
      else {
        let j = start - 1
        while (j >= 0 && " \t\n\r".includes(text[j]!)) j--
        if (j !== start - 1 && (text[j] === "." || text[j] === ":")) sentences.push(words.length)
      }
      starts.push(start)
      ends.push(i)
      words.push(text.slice(start, i).toLowerCase())
      start = -1
    }
  }
  // every occurrence in position order: [start, phrase]
  const found: Array<[number, number]> = []
  for (let j = 0; j < words.length; j++) {
    phrases.forEach((phrase, p) => {
      const last = phrase.tokens.length - 1
      if (j + last >= words.length) return
      for (let k = 0; k < last; k++) if (words[j + k] !== phrase.tokens[k]) return
      const t = words[j + last]!
      if (phrase.prefix ? t.startsWith(phrase.tokens[last]!) : t === phrase.tokens[last]) found.push([j, p])
    })
  }
  const size = SNIPPET_TOKENS
  const score = (from: number): [score: number, centred: number] => {
    const seen = new Set<number>()
    let total = 0
    let first = -1
    let last = 0
    for (const [at, p] of found) {
      if (at < from || at >= from + size) continue
      total += seen.has(p) ? 1 : 1000
      seen.add(p)
      if (first < 0) first = at
      last = at + phrases[p]!.tokens.length
    }
    let centred = first - Math.trunc((size - (last - first)) / 2)
    if (centred + size > words.length) centred = words.length - size
    return [total, Math.max(0, centred)]
  }
  let best = 0
  let bestScore = 0
  for (const [at] of found) {
    const [total, centred] = score(at)
    if (total > bestScore) {
      bestScore = total
      best = centred
    }
    if (words.length > size) {
      let jj = 0
      while (jj < sentences.length - 1 && sentences[jj + 1]! <= at) jj++
      if (sentences[jj]! < at) {
        const from = sentences[jj]!
        const bonus = score(from)[0] + (from === 0 ? 120 : 100)
        if (bonus > bestScore) {
          bestScore = bonus
          best = from
        }
      }
    }
  }
  // the occurrences from the window's start on, overlapping ones merged: [first token, last token]
  const runs: Array<[number, number]> = []
  for (const [at, p] of found) {
    const end = at + phrases[p]!.tokens.length - 1
    const run = runs[runs.length - 1]
    if (run !== undefined && at <= run[1]) run[1] = Math.max(run[1], end)
    else runs.push([at, end])
  }
  const to = Math.min(best + size, words.length) - 1
  let out = best > 0 ? "…" : ""
  let from = best > 0 ? starts[best]! : 0
  for (const [first, last] of runs) {
    if (first < best || first > to) continue
    const end = Math.min(last, to)
    out += `${text.slice(from, starts[first])}[${text.slice(starts[first], ends[end])}]`
    from = ends[end]!
  }
  return to >= words.length - 1 ? out + text.slice(from) : `${out}${text.slice(from, ends[to])}…`
}
