/**
 * One harness per backend of the store, so that one SessionIndex suite runs against real files
 * (Node layers, a temporary folder) and the in-memory volume: the store layers, plus an "external
 * process" that reads and damages files behind the index's back.
 */
import type { TranscriptFile, TranscriptLock } from "@branchlog/session-store"
import * as TestingStore from "@branchlog/session-store/testing"
import type * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The store services the index needs. */
export type StoreServices = TranscriptFile.TranscriptFile | TranscriptLock.TranscriptLock

/** What another process can do to files. */
export interface External {
  readonly read: (file: string) => Buffer | undefined
  readonly write: (file: string, content: string | Uint8Array) => void
  readonly list: (dir: string) => ReadonlyArray<string>
}

/** A fresh environment: the sessions folder, the store layer, the external actor. */
export interface Env {
  readonly dir: string
  readonly layer: Layer.Layer<StoreServices>
  readonly ext: External
}

/** A named way of making environments. */
export interface Harness {
  readonly name: string
  readonly make: () => Env
}

const tempRoots: Array<string> = []

/** Removes the temporary folders made by the Node harness. */
export const cleanupTempRoots = (): void => {
  for (const root of tempRoots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
}

/** A fresh real `…/agents/main/sessions` folder under a temporary root. */
export const tempSessionsDir = (): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-index-"))
  tempRoots.push(root)
  const dir = path.join(root, "agents", "main", "sessions")
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

/** Real files through the store's Node layers. */
export const nodeHarness: Harness = {
  name: "node",
  make: () => ({
    dir: tempSessionsDir(),
    layer: TestingStore.layerNode,
    ext: {
      read: (file) => (fs.existsSync(file) ? fs.readFileSync(file) : undefined),
      write: (file, content) => fs.writeFileSync(file, content),
      list: (dir) => fs.readdirSync(dir).sort()
    }
  })
}

/** The store's in-memory volume. */
export const memoryHarness: Harness = {
  name: "memory",
  make: () => {
    const volume = TestingStore.MemoryFileSystem.make()
    const dir = "/state/agents/main/sessions"
    volume.mkdir("/state")
    volume.mkdir("/state/agents")
    volume.mkdir("/state/agents/main")
    volume.mkdir(dir)
    return {
      dir,
      layer: TestingStore.layerMemory(volume),
      ext: {
        read: (file) => {
          const bytes = volume.readFile(file)
          return bytes === undefined ? undefined : Buffer.from(bytes)
        },
        write: (file, content) => volume.writeFile(file, content),
        list: (d) => [...volume.list(d)].sort()
      }
    }
  }
}
