/**
 * The session folders the command looks in when no `--dir` is given (spec §6): branchlog's own
 * (`$BRANCHLOG_AGENT_DIR`, default `~/.branchlog/agent`), pi's (`$PI_CODING_AGENT_DIR`, default
 * `~/.pi/agent`) and OpenClaw's (`$OPENCLAW_AGENT_DIR`, default `~/.openclaw/agent`, laid out as pi's;
 * and the gateway's `~/.openclaw/agents/<agentId>/sessions/`, one folder per agent for every cwd).
 * `~` is the user's home (`$HOME`), so tests point all of them at a temporary folder.
 */
import { SessionCatalog, TranscriptFile } from "@branchlog/store-jsonl"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { noIndex } from "./globals.js"

const expandHome = (path: string): string =>
  path === "~" ? homedir() : path.startsWith("~/") ? join(homedir(), path.slice(2)) : path

/** OpenClaw's agent folder (its SessionManager's layout): `$OPENCLAW_AGENT_DIR`, else `~/.openclaw/agent`. */
export const openclawAgentDir: Effect.Effect<string> = Config.string("OPENCLAW_AGENT_DIR").pipe(
  Config.option,
  Effect.map(Option.match({ onNone: () => join(homedir(), ".openclaw", "agent"), onSome: expandHome })),
  Effect.orElseSucceed(() => join(homedir(), ".openclaw", "agent"))
)

/** The agent folders laid out as `<agentDir>/sessions/--<cwd>--/`: branchlog's, pi's, OpenClaw's (no duplicates). */
export const agentDirs: Effect.Effect<ReadonlyArray<string>> = Effect.map(
  Effect.all([SessionCatalog.agentDir, SessionCatalog.piAgentDir, openclawAgentDir]),
  (dirs) => [...new Set(dirs.map((dir) => resolve(dir)))]
)

/**
 * The catalog options for an agent folder: branchlog's own keeps its catalog index up to date, as
 * `ls` always did (not with `--no-index`); another tool's folder is only read (no catalog is
 * written into pi's or OpenClaw's).
 */
const optionsFor = (agentDir: string) =>
  Effect.map(
    Effect.all([SessionCatalog.agentDir, FiberRef.get(noIndex)]),
    ([own, skip]): SessionCatalog.CatalogOptions => ({
      agentDir,
      index: resolve(own) === agentDir && !skip ? "write" : "read"
    })
  )

/** OpenClaw gateway's per-agent session folders: `~/.openclaw/agents/<agentId>/sessions`. */
export const gatewayDirs: Effect.Effect<ReadonlyArray<string>, never, TranscriptFile.TranscriptFile> = Effect.gen(
  function*() {
    const files = yield* TranscriptFile.TranscriptFile
    const root = join(homedir(), ".openclaw", "agents")
    const agents = yield* files.list(root).pipe(Effect.orElseSucceed(() => []))
    return agents.filter((entry) => entry.isDirectory).map((entry) => join(root, entry.name, "sessions"))
  }
)

/** Newest first, each path once. */
const merge = (found: ReadonlyArray<ReadonlyArray<SessionCatalog.SessionInfo>>) => {
  const seen = new Set<string>()
  const out: Array<SessionCatalog.SessionInfo> = []
  for (const info of found.flat()) {
    const key = resolve(info.path)
    if (seen.has(key)) continue
    seen.add(key)
    out.push(info)
  }
  return out.sort((a, b) => b.modified.getTime() - a.modified.getTime())
}

/** The sessions of `cwd` in every default folder (the gateway's: those whose header names `cwd`), newest first. */
export const listCwd = (cwd: string, onProgress?: SessionCatalog.OnProgress) =>
  Effect.gen(function*() {
    const target = resolve(cwd)
    const own = yield* Effect.forEach(
      yield* agentDirs,
      (agentDir) =>
        Effect.flatMap(optionsFor(agentDir), (options) => SessionCatalog.list(target, undefined, onProgress, options))
    )
    const gateway = yield* Effect.forEach(
      yield* gatewayDirs,
      (dir) =>
        Effect.map(SessionCatalog.list(target, dir, onProgress, { index: "read" }), (infos) =>
          infos.filter((i) => i.cwd === target))
    )
    return merge([...own, ...gateway])
  })

/** Every session of every default folder, newest first. */
export const listEverything = (onProgress?: SessionCatalog.OnProgress) =>
  Effect.gen(function*() {
    const own = yield* Effect.forEach(
      yield* agentDirs,
      (agentDir) => Effect.flatMap(optionsFor(agentDir), (options) => SessionCatalog.listAll(onProgress, options))
    )
    const gateway = yield* Effect.forEach(yield* gatewayDirs, (dir) =>
      SessionCatalog.list("", dir, onProgress, { index: "read" }))
    return merge([...own, ...gateway])
  })
