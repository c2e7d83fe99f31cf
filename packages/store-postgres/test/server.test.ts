/** The test server: reachable, and each fresh database is separate. */
import pg from "pg"
import { expect, inject, it } from "vitest"
import { freshDatabase } from "./support/server.js"

it("the server answers and fresh databases do not see each other", async () => {
  const a = await freshDatabase(inject("pgUrl"))
  const b = await freshDatabase(inject("pgUrl"))
  expect(a).not.toBe(b)
  const ca = new pg.Client({ connectionString: a })
  const cb = new pg.Client({ connectionString: b })
  await ca.connect()
  await cb.connect()
  try {
    await ca.query("CREATE TABLE only_here (x int)")
    const found = await cb.query("SELECT to_regclass('only_here') AS t")
    expect(found.rows[0].t).toBeNull()
    const fsync = await ca.query("SHOW fsync")
    if (process.env.BRANCHLOG_PG_URL === undefined) expect(fsync.rows[0].fsync).toBe("off")
  } finally {
    await ca.end()
    await cb.end()
  }
})
