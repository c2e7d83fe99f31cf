/**
 * A progress line for long reads of one file (issue 27): every whole-file read the store makes
 * (`forEachChunk`: a full load, the index's build, fsck's check; `lines` and `rawLines`: a copy,
 * a repair's rewrite) reports how far it is, and past one second a line on stderr says
 * "reading FILE: 212 MB of 723 MB (29%), 48 MB/s", redrawn at most every 100 ms and cleared when
 * the read ends. Only on a terminal and never with `--json` (the caller decides); a pipe gets nothing.
 */
import { FileSnapshot, TranscriptFile } from "@branchlog/store-jsonl"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { basename } from "node:path"
import type { BarStream } from "./progress.js"

/** How long a read goes before its line shows (`BRANCHLOG_PROGRESS_AFTER_MS` sets it, for tests). */
export const SHOW_AFTER_MS = 1000

/** The least time between two drawings. */
const REDRAW_MS = 100

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`

/** A progress line for reading `total` bytes of `name`: `update(done)` as the read goes, `end()` after. */
export const bytesLine = (
  name: string,
  total: number,
  stream: BarStream,
  options: { readonly showAfterMs?: number; readonly now?: () => number } = {}
) => {
  const now = options.now ?? Date.now
  const showAfter = options.showAfterMs ?? SHOW_AFTER_MS
  const start = now()
  let drawn = Number.NEGATIVE_INFINITY
  let shown = false
  return {
    update: (done: number) => {
      const at = now()
      if (at - start < showAfter || at - drawn < REDRAW_MS) return
      drawn = at
      shown = true
      const seconds = Math.max(0.001, (at - start) / 1000)
      const percent = total > 0 ? ` (${Math.min(100, Math.floor((done / total) * 100))}%)` : ""
      stream.write(`\rreading ${name}: ${mb(done)} of ${mb(total)}${percent}, ${mb(done / seconds)}/s\u001b[K`)
    },
    end: () => {
      if (shown) stream.write("\r\u001b[K")
    }
  }
}

/**
 * The store's files with every whole-file read reporting on a progress line (see
 * {@link bytesLine}): `forEachChunk`, `lines` and `rawLines` of `files`, each file's size from
 * `snapshots`.
 */
export const reporting = (
  files: TranscriptFile.TranscriptFileShape,
  snapshots: FileSnapshot.FileSnapshotShape,
  stream: BarStream,
  showAfterMs = SHOW_AFTER_MS
): TranscriptFile.TranscriptFileShape => {
  const lineFor = (path: string) =>
    snapshots.capture(path).pipe(
      Effect.map(Option.match({ onNone: () => 0, onSome: (s) => s.size })),
      Effect.orElseSucceed(() => 0),
      Effect.map((size) => bytesLine(basename(path), size, stream, { showAfterMs }))
    )
  const streamed = <L extends { readonly offset: number; readonly byteLength: number }, E>(
    path: string,
    lines: Stream.Stream<L, E>
  ): Stream.Stream<L, E> =>
    Stream.unwrap(Effect.map(lineFor(path), (line) =>
      lines.pipe(
        Stream.tap((l) => Effect.sync(() => line.update(l.offset + l.byteLength))),
        Stream.ensuring(Effect.sync(line.end))
      )))
  return {
    ...files,
    forEachChunk: (path, onLines, options) =>
      Effect.flatMap(lineFor(path), (line) =>
        files.forEachChunk(path, (lines) => {
          const last = lines[lines.length - 1]
          if (last !== undefined) line.update(last.offset + last.byteLength)
          return onLines(lines)
        }, options).pipe(Effect.ensuring(Effect.sync(line.end)))),
    lines: (path, options) => streamed(path, files.lines(path, options)),
    rawLines: (path, options) => streamed(path, files.rawLines(path, options))
  }
}

/**
 * The file-level services with {@link reporting} files: built before the store, so that every
 * read the store makes reports (its services are taken when it is built).
 */
export const layer = (
  stream: BarStream,
  showAfterMs?: number
): Layer.Layer<
  TranscriptFile.TranscriptFile | FileSnapshot.FileSnapshot,
  never,
  TranscriptFile.TranscriptFile | FileSnapshot.FileSnapshot
> =>
  Layer.effectContext(Effect.gen(function*() {
    const files = yield* TranscriptFile.TranscriptFile
    const snapshots = yield* FileSnapshot.FileSnapshot
    return Context.make(TranscriptFile.TranscriptFile, reporting(files, snapshots, stream, showAfterMs)).pipe(
      Context.add(FileSnapshot.FileSnapshot, snapshots)
    )
  }))
