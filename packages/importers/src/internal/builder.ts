/**
 * Building one imported session from source records (pure): records are kept (they become
 * entries) or passed over (they stay links, so a kept child of a passed-over record is re-attached
 * to its nearest kept ancestor); parents are resolved once every record is known, and the entries
 * come out with every parent before its children (file order otherwise). Source roots hang under
 * the provenance entry, so the session is one tree.
 */
import type { Entry } from "@branchlog/session-core"
import type { ImportedSession, Provenance, Skipped } from "../ImportedSession.js"
import { PROVENANCE_TYPE } from "../ImportedSession.js"
import { type IdMinter, makeMinter } from "./ids.js"

/** Builds an entry once its id and resolved parent are known. */
export type Make = (id: string, parentId: string | null) => Entry.Entry

interface Node {
  readonly key: string
  readonly parentKey: string | null
  readonly make?: Make
  /** A spliced entry: it goes after `parentKey`, and what later hangs there hangs on it instead. */
  readonly splice?: boolean
  /** A parent that is placed exactly: never moved under a spliced entry. */
  readonly fixed?: boolean
}

/** Collects the records of one session. */
export class SessionBuilder {
  readonly ids: IdMinter = makeMinter()
  readonly skipped: Array<Skipped> = []
  readonly warnings: Array<string> = []
  private readonly nodes: Array<Node> = []
  private readonly parentOverride = new Map<string, string>()
  private readonly byKey = new Map<string, Node>()
  private readonly dropped = new Map<string, number>()
  private outside = 0

  /** Whether a record with this key is known. */
  has(key: string): boolean {
    return this.byKey.has(key)
  }

  /**
   * Keeps a record as an entry; returns false (and keeps nothing) for a key seen before. A `fixed`
   * parent is taken as it is; any other parent that a spliced entry was put after (before this
   * record, in file order) resolves to that spliced entry.
   */
  keep(key: string, parentKey: string | null, make: Make, options: { readonly fixed?: boolean } = {}): boolean {
    if (this.byKey.has(key)) return false
    const node: Node = { key, parentKey, make, ...(options.fixed === true ? { fixed: true } : {}) }
    this.nodes.push(node)
    this.byKey.set(key, node)
    return true
  }

  /**
   * Keeps an entry that has no place of its own in the source's tree (a metadata record without a
   * uuid) right after `anchorKey`, on the path: records kept later whose parent is `anchorKey` hang
   * on it instead, so it adds no branch. Several spliced after one anchor form a chain, in order.
   */
  splice(key: string, anchorKey: string | null, make: Make): boolean {
    if (this.byKey.has(key)) return false
    const node: Node = { key, parentKey: anchorKey, make, splice: true }
    this.nodes.push(node)
    this.byKey.set(key, node)
    return true
  }

  /** Records a passed-over record's link without counting it (a line merged into another's entry). */
  alias(key: string, parentKey: string | null): void {
    if (!this.byKey.has(key)) this.byKey.set(key, { key, parentKey })
  }

  /** Hangs the record `key` (kept before or after this call) under `parentKey` instead of its own parent. */
  reparent(key: string, parentKey: string): void {
    this.parentOverride.set(key, parentKey)
  }

  /** Passes over a record that is not conversation, keeping its link; counted under `what`. */
  drop(key: string | undefined, parentKey: string | null, what: string): void {
    this.dropped.set(what, (this.dropped.get(what) ?? 0) + 1)
    if (key === undefined || this.byKey.has(key)) return
    const node = { key, parentKey }
    this.byKey.set(key, node)
  }

  /** Counts a record left out that has no link to keep. */
  count(what: string, n = 1): void {
    this.dropped.set(what, (this.dropped.get(what) ?? 0) + n)
  }

  /** Skips a source line (unknown type, not a record), with its reason. */
  skip(skipped: Skipped): void {
    this.skipped.push(skipped)
  }

  /** The nearest kept ancestor of `parentKey` (through passed-over records), or `null`. */
  private resolve(parentKey: string | null): string | null {
    const seen = new Set<string>()
    let key = parentKey
    while (key !== null) {
      if (seen.has(key)) return null
      seen.add(key)
      const node = this.byKey.get(key)
      if (node === undefined) {
        this.outside++
        return null
      }
      if (node.make !== undefined) return key
      key = node.parentKey
    }
    return null
  }

  /**
   * The session: the provenance entry first, then the kept records (parents first), the leaf the
   * one of `leafKey` (or the last entry when it is not kept).
   */
  finish(options: {
    readonly provenance: Provenance
    readonly sessionId: string
    readonly cwd: string
    readonly timestamp: string
    readonly parentSessionId?: string
    readonly leafKey?: string | null
  }): ImportedSession {
    const rootId = this.ids.idOf(`branchlog.import:${options.sessionId}`)
    const provenance: Entry.CustomEntry = {
      type: "custom",
      customType: PROVENANCE_TYPE,
      data: options.provenance,
      id: rootId,
      parentId: null,
      timestamp: options.timestamp
    }
    const parentOf = new Map<string, string | null>()
    const kept = this.nodes.filter((node) => node.make !== undefined)
    // the end of the chain of entries spliced after a key, as of the node being resolved (file order)
    const spliced = new Map<string | null, string>()
    for (const node of kept) {
      const resolved = this.resolve(this.parentOverride.get(node.key) ?? node.parentKey)
      parentOf.set(node.key, node.fixed === true ? resolved : spliced.get(resolved) ?? resolved)
      if (node.splice === true) spliced.set(resolved, node.key)
    }
    // file order, except that a record before its parent waits for it (iterative, any depth)
    const entries: Array<Entry.Entry> = [provenance]
    const emitted = new Set<string>()
    const waiting = new Map<string, Array<Node>>()
    const emit = (start: Node) => {
      const stack: Array<Node> = [start]
      while (stack.length > 0) {
        const node = stack.pop()!
        if (emitted.has(node.key)) continue
        emitted.add(node.key)
        const parent = parentOf.get(node.key) ?? null
        entries.push(node.make!(this.ids.idOf(node.key), parent === null ? rootId : this.ids.idOf(parent)))
        const later = waiting.get(node.key)
        if (later !== undefined) { for (let i = later.length - 1; i >= 0; i--) stack.push(later[i]!) }
      }
    }
    for (const node of kept) {
      const parent = parentOf.get(node.key) ?? null
      if (parent === null || emitted.has(parent)) emit(node)
      else {
        const list = waiting.get(parent)
        if (list === undefined) waiting.set(parent, [node])
        else list.push(node)
      }
    }
    // whatever is left sits on a parent cycle: each becomes a root
    for (const node of kept) {
      if (!emitted.has(node.key)) {
        parentOf.set(node.key, null)
        emit(node)
      }
    }
    const warnings = [...this.warnings]
    for (const [what, n] of this.dropped) warnings.push(`dropped ${n} ${what}`)
    if (this.outside > 0) {
      warnings.push(`${this.outside} record(s) point at a parent outside the source: imported as roots`)
    }
    // the leaf: past what was spliced after it
    const leafKey = options.leafKey === undefined || options.leafKey === null
      ? options.leafKey
      : spliced.get(options.leafKey) ?? options.leafKey
    const leafId = leafKey !== undefined && leafKey !== null && emitted.has(leafKey)
      ? this.ids.idOf(leafKey)
      : entries.at(-1)!.id
    return {
      provenance: options.provenance,
      sessionId: options.sessionId,
      cwd: options.cwd,
      timestamp: options.timestamp,
      ...(options.parentSessionId === undefined ? {} : { parentSessionId: options.parentSessionId }),
      entries,
      leafId,
      skipped: [...this.skipped].sort((a, b) => (a.line ?? a.seq ?? 0) - (b.line ?? b.seq ?? 0)),
      warnings
    }
  }
}

/** An ISO timestamp in ms (`fallback` for a missing or unreadable one). */
export const isoOf = (value: unknown, fallback: string): string => {
  if (typeof value === "string" || typeof value === "number") {
    const ms = typeof value === "number" ? value : Date.parse(value)
    if (Number.isFinite(ms)) return new Date(ms).toISOString()
  }
  return fallback
}

/** Zero usage (the source gave none). */
export const zeroUsage = () => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
})

/** A number, or 0. */
export const num = (value: unknown): number => typeof value === "number" && Number.isFinite(value) ? value : 0

/** A string, or undefined. */
export const str = (value: unknown): string | undefined => typeof value === "string" ? value : undefined

/** Whether a value is a plain object. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
