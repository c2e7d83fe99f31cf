// The few parts of node-postgres the tests and the benchmark use (no @types/pg in the lockfile).
declare module "pg" {
  interface QueryResult<R> {
    readonly rows: Array<R>
    readonly rowCount: number | null
  }
  interface Queryable {
    query<R = any>(text: string, params?: ReadonlyArray<unknown>): Promise<QueryResult<R>>
  }
  interface Client extends Queryable {
    connect(): Promise<void>
    end(): Promise<void>
    query<R = any>(text: string, params?: ReadonlyArray<unknown>): Promise<QueryResult<R>>
    on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): this
    on(event: "error", listener: (error: Error) => void): this
  }
  interface PoolClient extends Queryable {
    release(error?: Error | boolean): void
  }
  interface Pool extends Queryable {
    connect(): Promise<PoolClient>
    end(): Promise<void>
    query<R = any>(text: string, params?: ReadonlyArray<unknown>): Promise<QueryResult<R>>
    on(event: "error", listener: (error: Error) => void): this
  }
  const pg: {
    Client: new(config?: { connectionString?: string }) => Client
    Pool: new(config?: { connectionString?: string; max?: number }) => Pool
    escapeIdentifier: (name: string) => string
  }
  export default pg
}
