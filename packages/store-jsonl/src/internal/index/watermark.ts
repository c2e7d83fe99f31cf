/**
 * The watermark of an index: what the transcript looked like at the end the index covers. It is
 * a `FileSnapshot.Snapshot` (dev, inode, size, mtime, sha256 of the 4 KiB before the covered end)
 * plus a sha256 of the file's first 4 KiB (where the header is). Checking it costs one `stat` and
 * at most two reads of 4 KiB, whatever the size of the file (O(1)):
 *
 * - another inode or device, or a smaller file: replaced or truncated, rebuild;
 * - the same size with another mtime: rewritten in place, rebuild;
 * - larger, with the same 4 KiB before the covered end and the same first 4 KiB: appended to,
 *   the new bytes are caught up; otherwise rewritten, rebuild.
 *
 * What it cannot see is a rewrite in place that keeps the inode, grows the file, and leaves both
 * windows as they were (no tool that writes sessions does that: rewrites go through a temporary
 * file and a rename, and pi only appends); the bounded open also checks every row it reads by
 * offset (a whole line there, with the id the index says), which catches most of the rest.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as FileSnapshot from "../../FileSnapshot.js"
import { hashBytes } from "../../FileSnapshot.js"
import type { Env } from "../jsonl/env.js"
import type { Watermark } from "./format.js"

/** Bytes hashed at the start of the file. */
export const HEAD_WINDOW = 4096

/** The snapshot a watermark is. */
export const toSnapshot = (path: string, w: Watermark): FileSnapshot.Snapshot => ({
  path,
  dev: BigInt(w.dev),
  ino: BigInt(w.ino),
  size: w.size,
  mtimeNs: BigInt(w.mtimeNs),
  tailHash: w.tailHash,
  tailLength: w.tailLength
})

const headHash = (env: Env, path: string, length: number) =>
  Effect.map(env.files.readRanges(path, [[0, length]]), (chunks) => {
    const bytes = chunks[0]!
    return bytes.length === length ? hashBytes(bytes) : undefined
  })

/** The watermark of `path` as of `end` (from a snapshot taken as of `end`); `undefined` if the file went away. */
export const of = (env: Env, path: string, snapshot: FileSnapshot.Snapshot) =>
  Effect.gen(function*() {
    const headLength = Math.min(HEAD_WINDOW, snapshot.size)
    const head = yield* headHash(env, path, headLength)
    if (head === undefined) return undefined
    const w: Watermark = {
      size: snapshot.size,
      dev: String(snapshot.dev),
      ino: String(snapshot.ino),
      mtimeNs: String(snapshot.mtimeNs),
      tailHash: snapshot.tailHash,
      tailLength: snapshot.tailLength,
      headHash: head,
      headLength
    }
    return w
  })

/**
 * The watermark of a snapshot of the same file as `previous` (same device and inode) that covers
 * at least its first {@link HEAD_WINDOW} bytes: the head window of an appended file is the one
 * `previous` hashed (no read); `undefined` otherwise.
 */
export const following = (snapshot: FileSnapshot.Snapshot, previous: Watermark): Watermark | undefined =>
  previous.headLength === HEAD_WINDOW && String(snapshot.dev) === previous.dev &&
    String(snapshot.ino) === previous.ino &&
    snapshot.size >= previous.size
    ? {
      size: snapshot.size,
      dev: previous.dev,
      ino: previous.ino,
      mtimeNs: String(snapshot.mtimeNs),
      tailHash: snapshot.tailHash,
      tailLength: snapshot.tailLength,
      headHash: previous.headHash,
      headLength: previous.headLength
    }
    : undefined

/** The watermark of `path` as of `end`, captured now. */
export const capture = (env: Env, path: string, end: number) =>
  Effect.flatMap(
    env.snapshots.capture(path, { upTo: end }),
    (snapshot) => Option.isNone(snapshot) ? Effect.succeed(undefined) : of(env, path, snapshot.value)
  )

/** The file against a watermark: unchanged, appended to (from the covered end), replaced, or missing. */
export const check = (env: Env, path: string, w: Watermark) =>
  Effect.gen(function*() {
    const change = yield* env.snapshots.classify(path, toSnapshot(path, w))
    if (change._tag !== "Unchanged" && change._tag !== "Appended") return change
    const head = yield* headHash(env, path, w.headLength).pipe(
      Effect.catchTag("FileNotFoundError", () => Effect.succeed(undefined))
    )
    return head === w.headHash ? change : ({ _tag: "Replaced", reason: "rewritten" } as const)
  })
