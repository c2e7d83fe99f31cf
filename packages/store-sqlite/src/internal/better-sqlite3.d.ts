// The part of better-sqlite3 12's API this package uses (the package ships no types, and
// @types/better-sqlite3 is not a dependency of the workspace).
declare module "better-sqlite3" {
  namespace Database {
    interface RunResult {
      readonly changes: number
      readonly lastInsertRowid: number | bigint
    }
    interface Statement {
      readonly reader: boolean
      run(...params: ReadonlyArray<unknown>): RunResult
      get(...params: ReadonlyArray<unknown>): unknown
      all(...params: ReadonlyArray<unknown>): Array<unknown>
      pluck(toggle?: boolean): this
      raw(toggle?: boolean): this
      iterate(...params: ReadonlyArray<unknown>): IterableIterator<unknown>
    }
    interface Transaction<F extends (...args: Array<any>) => unknown> {
      (...args: Parameters<F>): ReturnType<F>
      deferred(...args: Parameters<F>): ReturnType<F>
      immediate(...args: Parameters<F>): ReturnType<F>
      exclusive(...args: Parameters<F>): ReturnType<F>
    }
    interface Options {
      readonly readonly?: boolean
      readonly fileMustExist?: boolean
      readonly timeout?: number
    }
    interface Database {
      readonly open: boolean
      readonly inTransaction: boolean
      prepare(sql: string): Statement
      exec(sql: string): this
      pragma(sql: string, options?: { readonly simple?: boolean }): unknown
      transaction<F extends (...args: Array<any>) => unknown>(fn: F): Transaction<F>
      close(): this
    }
  }
  const Database: new(filename: string, options?: Database.Options) => Database.Database
  export default Database
}
