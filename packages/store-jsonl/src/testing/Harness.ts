/**
 * One harness per backend, so that one behavioural suite runs against real files and the
 * in-memory volume: the service layer plus an "external process" that edits files behind the
 * services' back.
 */
import type * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as MemoryFileSystem from "../MemoryFileSystem.js"
import * as SessionStore from "../SessionStore.js"

/** The file-level services a harness provides. */
export type Services = SessionStore.Services

/** What another process can do to a file. */
export interface External {
  /** Overwrites in place (same inode). */
  readonly write: (file: string, content: string | Uint8Array) => void
  readonly append: (file: string, content: string | Uint8Array) => void
  /** Replaces by a new inode (temp + rename). */
  readonly replace: (file: string, content: string | Uint8Array) => void
  readonly remove: (file: string) => void
  readonly read: (file: string) => Buffer | undefined
  readonly mode: (file: string) => number | undefined
  readonly list: (dir: string) => ReadonlyArray<string>
}

/** A fresh environment: a folder, the services' layer, and the external actor. */
export interface Env {
  readonly dir: string
  readonly layer: Layer.Layer<Services>
  readonly ext: External
}

/** A named way of making fresh environments. */
export interface Harness {
  readonly name: string
  readonly make: () => Env
}

const tempRoots: Array<string> = []

/** Removes the temporary folders made by the Node harness. */
export const cleanupTempRoots = (): void => {
  for (const root of tempRoots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
}

/** A fresh real temporary folder. */
export const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-store-"))
  tempRoots.push(dir)
  return dir
}

/** Real files in a fresh temporary folder, through the Node layers. */
export const nodeHarness: Harness = {
  name: "node",
  make: () => ({
    dir: tempDir(),
    layer: SessionStore.layerNode,
    ext: {
      write: (file, content) => fs.writeFileSync(file, content),
      append: (file, content) => fs.appendFileSync(file, content),
      replace: (file, content) => {
        const temp = `${file}.ext-tmp`
        fs.writeFileSync(temp, content)
        fs.renameSync(temp, file)
      },
      remove: (file) => fs.rmSync(file, { force: true }),
      read: (file) => (fs.existsSync(file) ? fs.readFileSync(file) : undefined),
      mode: (file) => (fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : undefined),
      list: (dir) => fs.readdirSync(dir).sort()
    }
  })
}

/** A fresh in-memory volume. */
export const memoryHarness: Harness = {
  name: "memory",
  make: () => {
    const volume = MemoryFileSystem.make()
    volume.mkdir("/sessions")
    return {
      dir: "/sessions",
      layer: SessionStore.layerMemory(volume),
      ext: {
        write: (file, content) => volume.writeFile(file, content),
        append: (file, content) => volume.appendFile(file, content),
        replace: (file, content) => volume.replace(file, content),
        remove: (file) => void volume.remove(file),
        read: (file) => {
          const bytes = volume.readFile(file)
          return bytes === undefined ? undefined : Buffer.from(bytes)
        },
        mode: (file) => volume.inode(file)?.mode,
        list: (dir) => volume.list(dir)
      }
    }
  }
}

/** Both harnesses, to run a suite once per backend. */
export const harnesses: ReadonlyArray<Harness> = [nodeHarness, memoryHarness]
