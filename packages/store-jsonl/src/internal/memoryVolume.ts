/**
 * An in-memory volume: files are inodes (bytes, ino, mtime in ns, mode) reached through a path
 * map, plus a folder set and a fake process table. Rename replaces the path's inode like POSIX,
 * so an open read handle keeps reading the old inode. All methods are synchronous and throw
 * `VolumeError` with a POSIX-like code.
 */
import * as posix from "node:path/posix"

/** A failure of the in-memory volume with a POSIX-like code. */
export class VolumeError extends Error {
  constructor(readonly code: string, readonly path: string, operation: string) {
    super(`${code}: ${operation} '${path}'`)
  }
}

/** One file's content and identity. */
export interface Inode {
  readonly ino: bigint
  data: Uint8Array
  size: number
  mtimeNs: bigint
  mode: number
}

const encoder = new TextEncoder()
const toBytes = (content: string | Uint8Array): Uint8Array =>
  typeof content === "string" ? encoder.encode(content) : content

/** The in-memory volume. */
export class MemoryVolume {
  readonly pid: number
  readonly hostname: string
  readonly cwd: string
  private readonly files = new Map<string, Inode>()
  private readonly dirs = new Set<string>(["/"])
  private readonly processes = new Map<number, number | undefined>()
  private readonly limits = new WeakMap<Inode, number>()
  private nextIno = 1n
  private lastMtimeNs = 0n

  constructor(options: { readonly pid?: number; readonly hostname?: string; readonly cwd?: string } = {}) {
    this.pid = options.pid ?? 4242
    this.hostname = options.hostname ?? "memory-host"
    this.cwd = options.cwd ?? "/"
    this.processes.set(this.pid, 1)
    this.mkdir(this.cwd)
  }

  /** The absolute path of `path` (relative to the volume's cwd). */
  resolve(path: string): string {
    return posix.resolve(this.cwd, path)
  }

  private tick(): bigint {
    const now = BigInt(Date.now()) * 1_000_000n
    this.lastMtimeNs = now > this.lastMtimeNs ? now : this.lastMtimeNs + 1n
    return this.lastMtimeNs
  }

  // ---- strict primitives (used by the backend) ----

  /** The inode at `path`, if any. */
  inode(path: string): Inode | undefined {
    return this.files.get(this.resolve(path))
  }

  /** The inode at `path` or an ENOENT failure. */
  require(path: string, operation: string): Inode {
    const inode = this.inode(path)
    if (inode === undefined) throw new VolumeError("ENOENT", this.resolve(path), operation)
    return inode
  }

  private requireParent(path: string, operation: string): void {
    if (!this.dirs.has(posix.dirname(path))) throw new VolumeError("ENOENT", path, operation)
  }

  /** Creates an empty file; fails with EEXIST if one exists, ENOENT if the folder is missing. */
  create(path: string, operation: string, mode = 0o600): Inode {
    const abs = this.resolve(path)
    if (this.files.has(abs)) throw new VolumeError("EEXIST", abs, operation)
    if (this.dirs.has(abs)) throw new VolumeError("EISDIR", abs, operation)
    this.requireParent(abs, operation)
    const inode: Inode = { ino: this.nextIno++, data: new Uint8Array(64), size: 0, mtimeNs: this.tick(), mode }
    this.files.set(abs, inode)
    return inode
  }

  /** Appends bytes to an inode (growing its buffer geometrically) and bumps its mtime. */
  write(inode: Inode, bytes: Uint8Array): void {
    const needed = inode.size + bytes.length
    const limit = this.limits.get(inode)
    if (limit !== undefined && needed > limit) throw new VolumeError("ENOSPC", `size limit of ${limit} bytes`, "write")
    if (needed > inode.data.length) {
      const grown = new Uint8Array(Math.max(needed, inode.data.length * 2))
      grown.set(inode.data.subarray(0, inode.size))
      inode.data = grown
    }
    inode.data.set(bytes, inode.size)
    inode.size = needed
    inode.mtimeNs = this.tick()
  }

  /** Truncates an inode in place. */
  truncate(inode: Inode): void {
    inode.size = 0
    inode.mtimeNs = this.tick()
  }

  /** Gives an inode a second name; fails with EEXIST if the name is taken. */
  linkInode(inode: Inode, to: string): void {
    const target = this.resolve(to)
    if (this.files.has(target)) throw new VolumeError("EEXIST", target, "link")
    this.requireParent(target, "link")
    this.files.set(target, inode)
  }

  /** Renames a file, replacing whatever was at `to`. */
  rename(from: string, to: string): void {
    const source = this.resolve(from)
    const target = this.resolve(to)
    const inode = this.files.get(source)
    if (inode === undefined) throw new VolumeError("ENOENT", source, "rename")
    this.requireParent(target, "rename")
    this.files.delete(source)
    this.files.set(target, inode)
  }

  /** Removes a file; returns whether one was there. */
  remove(path: string): boolean {
    return this.files.delete(this.resolve(path))
  }

  /** Whether a folder exists. */
  isDirectory(path: string): boolean {
    return this.dirs.has(this.resolve(path))
  }

  // ---- lenient helpers for tests (create missing folders) ----

  /** Creates a folder and its parents. */
  mkdir(path: string): void {
    let dir = this.resolve(path)
    while (!this.dirs.has(dir)) {
      this.dirs.add(dir)
      dir = posix.dirname(dir)
    }
  }

  /** Whether a file exists. */
  exists(path: string): boolean {
    return this.files.has(this.resolve(path))
  }

  /** A copy of a file's bytes, or undefined. */
  readFile(path: string): Uint8Array | undefined {
    const inode = this.inode(path)
    return inode === undefined ? undefined : inode.data.slice(0, inode.size)
  }

  /** A file's content as UTF-8, or undefined. */
  readText(path: string): string | undefined {
    const bytes = this.readFile(path)
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes)
  }

  /** Overwrites a file in place (same inode, like `writeFileSync`), creating it and its folder if needed. */
  writeFile(path: string, content: string | Uint8Array): void {
    const abs = this.resolve(path)
    this.mkdir(posix.dirname(abs))
    const inode = this.files.get(abs) ?? this.create(abs, "writeFile")
    inode.size = 0
    this.write(inode, toBytes(content))
  }

  /** Appends to a file (like `appendFileSync`), creating it if needed. */
  appendFile(path: string, content: string | Uint8Array): void {
    const abs = this.resolve(path)
    this.mkdir(posix.dirname(abs))
    this.write(this.files.get(abs) ?? this.create(abs, "appendFile"), toBytes(content))
  }

  /** Replaces a file by a new inode (like writing a temporary file and renaming it over). */
  replace(path: string, content: string | Uint8Array): void {
    const abs = this.resolve(path)
    this.mkdir(posix.dirname(abs))
    this.files.delete(abs)
    this.write(this.create(abs, "replace"), toBytes(content))
  }

  /**
   * A full disk for one file: from now on, a write that would grow it beyond `maxBytes` fails
   * whole with ENOSPC (`undefined` lifts the limit). The limit follows the file's inode.
   */
  setSizeLimit(path: string, maxBytes: number | undefined): void {
    const inode = this.require(path, "limit")
    if (maxBytes === undefined) this.limits.delete(inode)
    else this.limits.set(inode, maxBytes)
  }

  /** Sets a file's mtime (milliseconds since the epoch). */
  setMtime(path: string, mtimeMs: number): void {
    this.require(path, "utimes").mtimeNs = BigInt(Math.floor(mtimeMs)) * 1_000_000n
  }

  /** The names in a folder (files and folders), sorted. */
  list(dir: string): ReadonlyArray<string> {
    const abs = this.resolve(dir)
    const names = new Set<string>()
    for (const path of [...this.files.keys(), ...this.dirs]) {
      if (path !== abs && posix.dirname(path) === abs) names.add(posix.basename(path))
    }
    return [...names].sort()
  }

  // ---- fake process table ----

  /** Registers a live process (with an optional start time). */
  addProcess(pid: number, starttime?: number): void {
    this.processes.set(pid, starttime)
  }

  /** Removes a process: it is dead from now on. */
  killProcess(pid: number): void {
    this.processes.delete(pid)
  }

  /** Whether a process is alive. */
  isAlive(pid: number): boolean {
    return this.processes.has(pid)
  }

  /** A process's start time, if known. */
  starttime(pid: number): number | undefined {
    return this.processes.get(pid)
  }
}
