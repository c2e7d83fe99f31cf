/**
 * The adapter between the conformance suite and the JSONL file backend: over real temporary
 * folders (`SessionStore.layerNode`, `jsonl`) and over one in-memory volume
 * (`SessionStore.layerMemory`, `jsonl-memfs`). A place is a folder, a reference is a file path, a row is a line,
 * a backup is a side file of the session's name (`SessionFiles.sideFile`).
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import type { Conformance } from "@branchlog/session-store/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import type { FileSnapshot } from "../../FileSnapshot.js"
import * as MemoryFileSystem from "../../MemoryFileSystem.js"
import * as SessionCatalog from "../../SessionCatalog.js"
import * as SessionFiles from "../../SessionFiles.js"
import * as SessionStore from "../../SessionStore.js"
import type { TranscriptFile } from "../../TranscriptFile.js"
import type { TranscriptLock } from "../../TranscriptLock.js"

/** What the file adapters use beyond the store: the file-level services (`SessionCatalog` reads files). */
export type FileServices = TranscriptFile | FileSnapshot | TranscriptLock

/** What another process can do to the files of one filesystem. */
interface Files {
  readonly read: (file: string) => string | undefined
  readonly write: (file: string, text: string) => void
  readonly append: (file: string, text: string) => void
  /** Temporary file, then rename over the file (a new inode). */
  readonly replace: (file: string, text: string) => void
  readonly remove: (file: string) => void
  readonly list: (dir: string) => ReadonlyArray<string>
}

const linesOf = (text: string): Array<string> => {
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

const textOf = (rows: ReadonlyArray<string>): string => rows.length === 0 ? "" : rows.join("\n") + "\n"

const subjectOver = (
  files: Files,
  place: Conformance.Subject<FileServices>["place"],
  independent: Conformance.Subject<FileServices>["independent"]
): Conformance.Subject<FileServices> => ({
  place,
  create: (place, cwd, options) => SessionManager.create(cwd, place, options),
  open: (ref, options) => SessionManager.open(ref, undefined, undefined, options),
  refOf: (manager) => manager.getSessionFile()!,
  absent: (place, name) => nodePath.join(place, `${name}.jsonl`),
  forkFrom: (source, targetCwd, place, options) => SessionManager.forkFrom(source, targetCwd, place, options),
  continueRecent: (place, cwd, options) => SessionManager.continueRecent(cwd, place, options),
  list: (place, cwd) =>
    Effect.map(SessionCatalog.list(cwd, place), (infos) => infos.map((info) => ({ ref: info.path, info }))),
  mostRecent: (place) => SessionCatalog.findMostRecent(place),
  remove: (ref) => Effect.sync(() => files.remove(ref)),
  rows: (ref) => Effect.sync(() => Option.getOrUndefined(Option.map(Option.fromNullable(files.read(ref)), linesOf))),
  backups: (ref) =>
    Effect.sync(() =>
      files.list(nodePath.dirname(ref))
        .filter((name) => {
          const side = SessionFiles.sideFile(name)
          return side?.kind === "backup" && side.of === nodePath.basename(ref)
        })
        .sort()
        .map((name) => linesOf(files.read(nodePath.join(nodePath.dirname(ref), name)) ?? ""))
    ),
  seed: (place, name, rows) =>
    Effect.sync(() => {
      const ref = nodePath.join(place, `${name}.jsonl`)
      files.write(ref, textOf(rows))
      return ref
    }),
  foreignAppend: (ref, rows) => Effect.sync(() => files.append(ref, textOf(rows))),
  foreignReplace: (ref, rows) => Effect.sync(() => files.replace(ref, textOf(rows))),
  independent
})

const nodeFiles: Files = {
  read: (file) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined),
  write: (file, text) => fs.writeFileSync(file, text),
  append: (file, text) => fs.appendFileSync(file, text),
  replace: (file, text) => {
    const temp = nodePath.join(nodePath.dirname(file), `.${nodePath.basename(file)}.conformance.tmp`)
    fs.writeFileSync(temp, text)
    fs.renameSync(temp, file)
  },
  remove: (file) => fs.rmSync(file, { force: true }),
  list: (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
}

/** The JSONL file backend over real temporary folders (`SessionStore.layerNode`). */
export const jsonl = (): Conformance.Backend<FileServices> => ({
  name: "jsonl",
  layer: SessionStore.layerNode,
  subject: subjectOver(
    nodeFiles,
    Effect.acquireRelease(
      Effect.sync(() => fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "branchlog-conformance-")))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    ),
    (effect) => Effect.provide(effect, SessionStore.layerNode)
  )
})

/**
 * The JSONL file backend over one in-memory volume (`SessionStore.layerMemory`): the same store as
 * `jsonl`, on a fake filesystem (not the memory backend: that is `rowBackend.memory`, no files).
 */
export const jsonlMemfs = (): Conformance.Backend<FileServices> => {
  const volume = MemoryFileSystem.make()
  let places = 0
  const files: Files = {
    read: (file) => volume.readText(file),
    write: (file, text) => volume.writeFile(file, text),
    append: (file, text) => volume.appendFile(file, text),
    replace: (file, text) => volume.replace(file, text),
    remove: (file) => void volume.remove(file),
    list: (dir) => (volume.isDirectory(dir) ? volume.list(dir) : [])
  }
  const layer = SessionStore.layerMemory(volume)
  return {
    name: "jsonl-memfs",
    layer,
    subject: subjectOver(
      files,
      Effect.sync(() => {
        const dir = `/conformance/place-${++places}`
        volume.mkdir(dir)
        return dir
      }),
      <A, E>(effect: Effect.Effect<A, E, Conformance.Services | FileServices>) =>
        Effect.provide(effect, SessionStore.layerMemory(volume))
    )
  }
}
