/**
 * A user's `!cmd` (spec §1.4, §13): the command runs in the session's working folder through
 * `@effect/platform`'s `Command` (`bash -c`, stdin closed, stdout and stderr merged), with a
 * timeout, cancellable (the process group is killed when the run is interrupted, timed out or
 * aborted). The output kept in the message is capped to its last `maxOutputBytes`; when it is
 * cut, the full output is in a file (`fullOutputPath`). The result is recorded as a pi
 * `bashExecution` message; `!!cmd` marks it `excludeFromContext` (the model never sees it).
 *
 * @since 0.1.0
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** How `!cmd` runs. */
export interface Settings {
  /** Longest run, in milliseconds (default 120 s). */
  readonly timeoutMs?: number
  /** The most output kept in the message, in bytes: its end (default 50 KiB). */
  readonly maxOutputBytes?: number
  /** Where full outputs go when they are cut (default the system's temporary folder). */
  readonly outputDir?: string
  /** The shell (default `bash`). */
  readonly shell?: string
}

/** A parsed `!` prompt. */
export interface Parsed {
  readonly command: string
  readonly excludeFromContext: boolean
}

/** `!cmd` or `!!cmd` (the command trimmed, not blank), else `undefined`. */
export const parse = (text: string): Parsed | undefined => {
  if (!text.startsWith("!")) return undefined
  const exclude = text.startsWith("!!")
  const command = text.slice(exclude ? 2 : 1).trim()
  return command === "" ? undefined : { command, excludeFromContext: exclude }
}

/** What the run gave. */
export interface Outcome {
  readonly output: string
  readonly exitCode: number | undefined
  readonly cancelled: boolean
  readonly timedOut: boolean
  readonly truncated: boolean
  readonly fullOutputPath?: string
  /** Every byte the command wrote. */
  readonly totalBytes: number
}

/** Keeps the end of the output; spills everything to a file once it passes the cap. */
const makeSink = (cap: number, dir: string) => {
  let held: Array<Uint8Array> = []
  let heldBytes = 0
  let total = 0
  let fd: number | undefined
  let file: string | undefined
  return {
    push: (chunk: Uint8Array) => {
      total += chunk.length
      held.push(chunk)
      heldBytes += chunk.length
      if (total > cap && fd === undefined) {
        fs.mkdirSync(dir, { recursive: true })
        file = path.join(dir, `branchlog-bash-${randomUUID()}.log`)
        fd = fs.openSync(file, "w")
        for (const c of held) fs.writeSync(fd, c)
      } else if (fd !== undefined) fs.writeSync(fd, chunk)
      while (held.length > 1 && heldBytes - held[0]!.length >= cap) heldBytes -= held.shift()!.length
    },
    close: () => {
      if (fd !== undefined) fs.closeSync(fd)
      fd = undefined
      const bytes = Buffer.concat(held)
      held = []
      let tail = bytes.length > cap ? bytes.subarray(bytes.length - cap) : bytes
      // a cut tail starts on a character, not inside one
      if (tail !== bytes) { while (tail.length > 0 && (tail[0]! & 0xc0) === 0x80) tail = tail.subarray(1) }
      return { output: new TextDecoder().decode(tail), total, file }
    }
  }
}

/**
 * Runs `command` in `cwd`; `cancel` ends it (as an abort does). Never fails: a command that
 * cannot start gives its reason as output and exit code 127.
 */
export const run = (
  command: string,
  cwd: string,
  settings: Settings,
  cancel: Effect.Effect<void>
): Effect.Effect<Outcome, never, CommandExecutor.CommandExecutor> =>
  Effect.gen(function*() {
    const timeoutMs = settings.timeoutMs ?? 120_000
    const sink = makeSink(settings.maxOutputBytes ?? 50 * 1024, settings.outputDir ?? os.tmpdir())
    const work = Effect.scoped(Effect.gen(function*() {
      const proc = yield* Command.start(
        Command.make(settings.shell ?? "bash", "-c", command).pipe(
          Command.workingDirectory(cwd),
          Command.feed("")
        )
      )
      const [, code] = yield* Effect.all([
        Stream.merge(proc.stdout, proc.stderr).pipe(Stream.runForEach((chunk) => Effect.sync(() => sink.push(chunk)))),
        proc.exitCode
      ], { concurrency: 2 })
      return { _tag: "exit", code: code as number } as const
    }))
    const ended = yield* Effect.raceFirst(
      work.pipe(
        Effect.catchAll((error) =>
          Effect.sync(() => {
            sink.push(new TextEncoder().encode(`failed to run: ${error.message}`))
            return { _tag: "exit", code: 127 } as const
          })
        )
      ),
      Effect.raceFirst(
        Effect.as(Effect.sleep(timeoutMs), { _tag: "timeout" } as const),
        Effect.as(cancel, { _tag: "cancel" } as const)
      )
    )
    const { file, output, total } = sink.close()
    const timedOut = ended._tag === "timeout"
    return {
      output: timedOut
        ? `${output}${output.endsWith("\n") || output === "" ? "" : "\n"}(timed out after ${timeoutMs} ms)`
        : output,
      exitCode: ended._tag === "exit" ? ended.code : undefined,
      cancelled: ended._tag !== "exit",
      timedOut,
      truncated: file !== undefined,
      ...(file === undefined ? {} : { fullOutputPath: file }),
      totalBytes: total
    }
  })

/** The `bashExecution` message of a run. */
export const toMessage = (
  parsed: Parsed,
  outcome: Outcome
): Effect.Effect<AgentMessage.BashExecutionMessage> =>
  Effect.map(Clock.currentTimeMillis, (timestamp) => ({
    role: "bashExecution",
    command: parsed.command,
    output: outcome.output,
    ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
    cancelled: outcome.cancelled,
    truncated: outcome.truncated,
    ...(outcome.fullOutputPath === undefined ? {} : { fullOutputPath: outcome.fullOutputPath }),
    ...(parsed.excludeFromContext ? { excludeFromContext: true } : {}),
    timestamp
  }))

/** Node's command executor (over Node's file system). */
export const layerNode: Layer.Layer<CommandExecutor.CommandExecutor> = NodeCommandExecutor.layer.pipe(
  Layer.provide(NodeFileSystem.layer)
)
