/**
 * Every row of a session, read SYNCHRONOUSLY: what a bounded open's `loadRest` needs, since a
 * manager loads the rest of a resumed session from its synchronous reads (`getTree`, a context at
 * a leaf off the loaded path) through `Effect.runSync`, which an asynchronous query cannot serve.
 * The query runs in a worker thread on a connection of its own (node-postgres, the driver
 * `@effect/sql-pg` uses, with the same URL and `PG*` defaults) while this thread waits on a
 * shared flag (`Atomics.wait`) and then takes the result with `receiveMessageOnPort`. Used only
 * when a resumed session needs the rest; the worker ends with each read.
 */
import { createRequire } from "node:module"
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads"

/** The rows of a session as one statement saw them (`undefined`: no session). */
export interface Found {
  readonly head: { readonly generation: number; readonly lastSeq: number }
  readonly texts: Array<string>
  readonly tornTail: boolean
}

let pgPath: string | null | undefined

/**
 * Where node-postgres is (as `@effect/sql-pg` resolves it), from this module (the package's own
 * `dist`) or, bundled into an application (the CLI), from there through this package's folder;
 * `null`: nowhere.
 */
const pg = (): string | null => {
  if (pgPath !== undefined) return pgPath
  const here = createRequire(import.meta.url)
  const ways = [
    () => here.resolve("pg"),
    () => createRequire(here.resolve("@effect/sql-pg")).resolve("pg"),
    () =>
      createRequire(createRequire(here.resolve("@branchlog/store-postgres/package.json")).resolve("@effect/sql-pg"))
        .resolve("pg")
  ]
  pgPath = null
  for (const way of ways) {
    try {
      pgPath = way()
      break
    } catch {
      // the next way
    }
  }
  return pgPath
}

/** `true` when {@link loadRowsSync} can run here (node-postgres found for its worker). */
export const available = (): boolean => pg() !== null

// the worker: one client, the statement of `rows.ts`'s `loadRows`, the result posted on the port
const WORKER = `
const { workerData } = require("node:worker_threads")
const pg = require(workerData.pg)
const done = (message) => {
  workerData.port.postMessage(message)
  Atomics.store(workerData.flag, 0, 1)
  Atomics.notify(workerData.flag, 0)
}
;(async () => {
  const client = new pg.Client({ connectionString: workerData.url, application_name: "branchlog" })
  try {
    await client.connect()
    const result = await client.query(
      "SELECT s.generation, s.last_seq, s.torn_tail, r.text, r.raw FROM branchlog_sessions s " +
        "LEFT JOIN branchlog_rows r ON r.session_id = s.session_id WHERE s.session_id = $1 ORDER BY r.seq",
      [workerData.session]
    )
    const rows = result.rows
    if (rows.length === 0) return done({ ok: true, found: null })
    const texts = []
    for (const row of rows) if (row.text !== null) texts.push(row.raw === null ? row.text : row.raw.toString("utf8"))
    done({
      ok: true,
      found: {
        head: { generation: rows[0].generation, lastSeq: rows[0].last_seq },
        texts,
        tornTail: rows[0].torn_tail === true
      }
    })
  } catch (error) {
    done({ ok: false, code: typeof error?.code === "string" ? error.code : undefined, message: String(error?.message ?? error) })
  } finally {
    await client.end().catch(() => {})
  }
})()
`

/** A failed synchronous read: the driver's code and message. */
export class SyncReadError extends Error {
  constructor(readonly code: string | undefined, message: string) {
    super(message)
  }
}

/** Every row of `session` in the database at `url`, in order, read synchronously (throws `SyncReadError`). */
export const loadRowsSync = (url: string, session: string, timeoutMs: number): Found | undefined => {
  const pgAt = pg()
  if (pgAt === null) throw new SyncReadError(undefined, "node-postgres was not found for a synchronous read")
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const { port1, port2 } = new MessageChannel()
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { pg: pgAt, url, session, flag, port: port2 },
    transferList: [port2]
  })
  // it ends by itself once its client has ended (a timed-out one is stopped)
  worker.unref()
  try {
    const waited = Atomics.wait(flag, 0, 0, timeoutMs)
    if (waited === "timed-out") {
      void worker.terminate()
      throw new SyncReadError("ETIMEDOUT", `the rows were not read in ${timeoutMs} ms`)
    }
    const message = receiveMessageOnPort(port1)?.message as
      | { readonly ok: true; readonly found: Found | null }
      | { readonly ok: false; readonly code: string | undefined; readonly message: string }
      | undefined
    if (message === undefined) throw new SyncReadError(undefined, "the reading worker gave no answer")
    if (!message.ok) throw new SyncReadError(message.code, message.message)
    return message.found ?? undefined
  } finally {
    port1.close()
  }
}
