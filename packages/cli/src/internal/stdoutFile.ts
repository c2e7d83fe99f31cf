/**
 * `-` as an output path: the command writes into a fresh temporary folder, then the file it wrote
 * goes to stdout byte for byte and the folder is removed (what it printed for people goes to stderr).
 */
import * as Effect from "effect/Effect"
import { createReadStream, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"

/** `true` for the output path that means stdout. */
export const isStdout = (path: string | undefined): boolean => path === "-"

/** A temporary folder for the duration of `use`, removed afterwards whatever happens. */
export const withTemporaryFolder = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "branchlog-stdout-"))),
    use,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** Copies the bytes of `file` to stdout (without closing it). */
export const copyToStdout = (file: string): Effect.Effect<void> =>
  Effect.promise(() => pipeline(createReadStream(file), process.stdout, { end: false }))
