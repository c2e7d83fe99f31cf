/**
 * Node's built-in `node:sqlite` (`DatabaseSync`, Node 22.13+ and 24; FTS5 in 24 and 22.23, not 22.13) behind the part of
 * better-sqlite3's API this package uses (`better-sqlite3.d.ts`): statements with `pluck` / `raw`,
 * `transaction(fn)` with `immediate` (nested: savepoints), `pragma`, the busy timeout. Loaded
 * synchronously on first use; `undefined` where the running Node has no `node:sqlite`, or one
 * without FTS5 (Node 22.13's).
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import type Database from "better-sqlite3"
import { createRequire } from "node:module"

interface StatementSync {
  run(...params: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint }
  get(...params: ReadonlyArray<unknown>): unknown
  all(...params: ReadonlyArray<unknown>): Array<unknown>
  iterate?(...params: ReadonlyArray<unknown>): IterableIterator<unknown>
  setReturnArrays?(enabled: boolean): void
  columns?(): ReadonlyArray<unknown>
}

interface DatabaseSync {
  prepare(sql: string): StatementSync
  exec(sql: string): void
  close(): void
}

type DatabaseSyncClass = new(path: string, options?: { readonly readOnly?: boolean }) => DatabaseSync

let loaded: { readonly DatabaseSync: DatabaseSyncClass } | null | undefined

// the search index is FTS5, which the SQLite of some Nodes' node:sqlite lacks (22.13 has none)
const hasFts5 = (DatabaseSync: DatabaseSyncClass): boolean => {
  const db = new DatabaseSync(":memory:")
  try {
    db.exec("CREATE VIRTUAL TABLE temp.probe USING fts5(x)")
    return true
  } catch {
    return false
  } finally {
    db.close()
  }
}

/**
 * `node:sqlite`'s module, `undefined` where the running Node has none, or one whose SQLite has no
 * FTS5 (its experimental warning not printed).
 */
export const load = (): { readonly DatabaseSync: DatabaseSyncClass } | undefined => {
  if (loaded !== undefined) return loaded ?? undefined
  const emit = process.emitWarning
  // Node 22 prints "SQLite is an experimental feature" once, on stderr: not a command's output
  process.emitWarning = function(this: unknown, warning: string | Error, ...rest: Array<any>) {
    if (String(typeof warning === "string" ? warning : warning?.message).includes("SQLite")) return
    return (emit as (...args: Array<unknown>) => void).call(process, warning, ...rest)
  } as typeof process.emitWarning
  try {
    const module = createRequire(import.meta.url)("node:sqlite") as { readonly DatabaseSync?: DatabaseSyncClass }
    loaded = typeof module.DatabaseSync === "function" && hasFts5(module.DatabaseSync)
      ? { DatabaseSync: module.DatabaseSync }
      : null
  } catch {
    loaded = null
  } finally {
    process.emitWarning = emit
  }
  return loaded ?? undefined
}

// better-sqlite3 binds `undefined` as NULL; node:sqlite refuses it
const bindable = (params: ReadonlyArray<unknown>): Array<unknown> => params.map((p) => p === undefined ? null : p)

class Statement implements Database.Statement {
  private shape: "object" | "raw" | "pluck" = "object"
  readonly reader: boolean

  constructor(private readonly st: StatementSync) {
    // without `columns()` (before Node 22.16), `all()` also runs a statement that returns no rows
    this.reader = st.columns === undefined ? true : st.columns().length > 0
  }

  private out(row: unknown): unknown {
    if (row === undefined || this.shape === "object") return row
    const values = Array.isArray(row) ? row : Object.values(row as object)
    return this.shape === "pluck" ? values[0] : values
  }

  private set(shape: "object" | "raw" | "pluck"): this {
    this.shape = shape
    this.st.setReturnArrays?.(shape !== "object")
    return this
  }

  run(...params: ReadonlyArray<unknown>): Database.RunResult {
    const result = this.st.run(...bindable(params))
    return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid }
  }

  get(...params: ReadonlyArray<unknown>): unknown {
    return this.out(this.st.get(...bindable(params)))
  }

  all(...params: ReadonlyArray<unknown>): Array<unknown> {
    const rows = this.st.all(...bindable(params))
    return this.shape === "object" ? rows : rows.map((row) => this.out(row))
  }

  *iterate(...params: ReadonlyArray<unknown>): IterableIterator<unknown> {
    const rows = this.st.iterate === undefined ? this.st.all(...bindable(params)) : this.st.iterate(...bindable(params))
    for (const row of rows) yield this.out(row)
  }

  pluck(toggle = true): this {
    return this.set(toggle ? "pluck" : "object")
  }

  raw(toggle = true): this {
    return this.set(toggle ? "raw" : "object")
  }
}

class Connection implements Database.Database {
  private depth = 0
  private closed = false

  constructor(private readonly db: DatabaseSync) {}

  get open(): boolean {
    return !this.closed
  }

  get inTransaction(): boolean {
    return this.depth > 0
  }

  prepare(sql: string): Database.Statement {
    return new Statement(this.db.prepare(sql))
  }

  exec(sql: string): this {
    this.db.exec(sql)
    return this
  }

  pragma(sql: string, options?: { readonly simple?: boolean }): unknown {
    const rows = this.db.prepare(`PRAGMA ${sql}`).all()
    if (options?.simple !== true) return rows
    const first = rows[0]
    return first === undefined ? undefined : Object.values(first as object)[0]
  }

  transaction<F extends (...args: Array<any>) => unknown>(fn: F): Database.Transaction<F> {
    const run = (begin: string) => (...args: Parameters<F>): ReturnType<F> => {
      const savepoint = this.depth > 0 ? `branchlog_tx_${this.depth}` : undefined
      this.db.exec(savepoint === undefined ? begin : `SAVEPOINT ${savepoint}`)
      this.depth += 1
      let inside = true
      try {
        const result = fn(...args) as ReturnType<F>
        inside = false
        this.depth -= 1
        this.db.exec(savepoint === undefined ? "COMMIT" : `RELEASE ${savepoint}`)
        return result
      } catch (error) {
        if (inside) this.depth -= 1
        try {
          this.db.exec(savepoint === undefined ? "ROLLBACK" : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`)
        } catch {
          // SQLite already rolled the transaction back (a failed COMMIT, an I/O error)
        }
        throw error
      }
    }
    const deferred = run("BEGIN")
    return Object.assign(deferred, {
      deferred,
      immediate: run("BEGIN IMMEDIATE"),
      exclusive: run("BEGIN EXCLUSIVE")
    }) as unknown as Database.Transaction<F>
  }

  close(): this {
    if (!this.closed) this.db.close()
    this.closed = true
    return this
  }
}

/** Opens `path` through `node:sqlite` with better-sqlite3's options (read-only, busy timeout). */
export const open = (
  module: { readonly DatabaseSync: DatabaseSyncClass },
  path: string,
  options: Database.Options
): Database.Database => {
  const connection = new Connection(new module.DatabaseSync(path, { readOnly: options.readonly === true }))
  connection.pragma(`busy_timeout = ${options.timeout ?? 5000}`)
  return connection
}
