/**
 * What `branchlog append FILE` does, apart from parsing its command line (so the executable's direct
 * path, `direct.ts`, runs it without building @effect/cli's command tree): agent messages read from
 * stdin, one JSON object per line, each its own entry. Streams: the lines that have arrived are
 * appended (one hold of the lock per batch of whatever was buffered) before more input is awaited,
 * so a writer killed half-way keeps what it had appended.
 */
import { AgentMessage } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { AppendStopped, UsageError } from "../CliError.js"
import { Stdin } from "../Stdin.js"
import * as Output from "./output.js"

/** One input line: its number (1-based) and text. */
interface InputLine {
  readonly line: number
  readonly text: string
}

/** Splits stdin into lines as it arrives: each `read` gives the complete lines buffered so far. */
const lineReader = (stdin: Context.Tag.Service<typeof Stdin>) => {
  let carry: Array<string> = []
  let next = 1
  let done = false
  const emit = (texts: ReadonlyArray<string>): Array<InputLine> => texts.map((text) => ({ line: next++, text }))
  /** The next complete lines (never empty before the end), or `None` at the end of input. */
  const read: Effect.Effect<Option.Option<ReadonlyArray<InputLine>>> = Effect.suspend(() => {
    if (done) return Effect.succeed(Option.none())
    return Effect.flatMap(stdin.read, (piece) => {
      if (Option.isNone(piece)) {
        done = true
        const rest = carry.join("")
        carry = []
        return Effect.succeed(rest === "" ? Option.none() : Option.some(emit([rest])))
      }
      const cut = piece.value.lastIndexOf("\n")
      if (cut === -1) {
        carry.push(piece.value)
        return read
      }
      const complete = [...carry, piece.value.slice(0, cut)].join("").split("\n")
      carry = [piece.value.slice(cut + 1)]
      return Effect.succeed(Option.some(emit(complete)))
    })
  })
  return { read }
}

/** The options of `append`. */
export interface AppendOptions {
  /** The session: a file path or a reference. */
  readonly file: string
  /** Read the whole session first (`--full`). */
  readonly full: boolean
  /** Print the result as JSON (`--json`). */
  readonly json: boolean
}

/** Appends stdin's messages to `file` as they arrive; prints how many were appended. */
export const appendStdin = ({ file, full, json }: AppendOptions) =>
  Effect.gen(function*() {
    const input = lineReader(yield* Stdin)
    const session = full
      ? yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true, cache: false })
      : yield* SessionManager.resume(file, undefined, undefined, { eagerFlush: true })
    let appended = 0
    const write = (batch: ReadonlyArray<{ readonly line: number; readonly message: AgentMessage.AgentMessage }>) =>
      batch.length === 0 ? Effect.void : session.appendMessages(batch.map((item) => item.message)).pipe(
        Effect.tap((ids) => {
          appended += ids.length
        }),
        Effect.catchTag("AppendBatchError", (error) =>
          Effect.fail(
            new AppendStopped({
              path: file,
              // the first line not written (the one after the batch if it failed past its end)
              line: batch[error.written]?.line ?? batch[batch.length - 1]!.line + 1,
              written: appended + error.written,
              reason: error.error.message
            })
          ))
      )
    while (true) {
      const lines = yield* input.read
      if (Option.isNone(lines)) break
      const batch: Array<{ readonly line: number; readonly message: AgentMessage.AgentMessage }> = []
      for (const { line, text: raw } of lines.value) {
        const text = raw.trim()
        if (text === "") continue
        let value: unknown
        try {
          value = JSON.parse(text)
        } catch (error) {
          yield* write(batch)
          return yield* new UsageError({
            path: "stdin",
            line,
            detail: `not JSON (${(error as Error).message}); ${appended} appended before it`
          })
        }
        const decoded = AgentMessage.decodeAgentMessage(value)
        if (Either.isLeft(decoded)) {
          yield* write(batch)
          return yield* new UsageError({
            path: "stdin",
            line,
            detail: `not an agent message; ${appended} appended before it`
          })
        }
        batch.push({ line, message: decoded.right })
      }
      yield* write(batch)
    }
    yield* session.flush()
    if (json) return yield* Output.json({ file, appended, leafId: session.getLeafId() })
    yield* Output.note(`${file}: appended ${appended} entries`)
  })
