/**
 * The command's logger: every notice the libraries log (a stale lock taken over, an observer that
 * failed) goes to stderr as `branchlog: <level>: <message>`, never to stdout, where a script reads
 * the command's output; control characters in it are made visible, as in every note.
 */
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as FiberRefs from "effect/FiberRefs"
import * as Logger from "effect/Logger"
import { createRequire } from "node:module"
import type * as NodeUtil from "node:util"
import { coloursAllowed } from "./plainConsole.js"
import * as SafeText from "./safeText.js"

// node:util through `require`, when a logged part is not a string: an `import` of it makes Node build
// its ESM facade at start-up, which reads every export and so loads what their lazy getters hold
let inspect: typeof NodeUtil.inspect | undefined
const text = (part: unknown): string =>
  typeof part === "string"
    ? part
    : (inspect ??= (createRequire(import.meta.url)("node:util") as typeof NodeUtil).inspect)(part, {
      depth: 4
    })

/** Writes each log line through the Console's `error` (stderr), with its level and any cause. */
export const stderrLogger: Logger.Logger<unknown, void> = Logger.make(({ cause, context, logLevel, message }) => {
  const services = FiberRefs.getOrDefault(context, DefaultServices.currentServices)
  const parts = Array.isArray(message) ? message : [message]
  const level = logLevel._tag === "Info" ? "" : `${logLevel.label.toLowerCase()}: `
  const reason = Cause.isEmpty(cause) ? "" : `: ${Cause.pretty(cause, { renderErrorCause: true })}`
  // like every note: a control character in what was logged (a path, a message) is shown, not obeyed
  Context.get(services, Console.Console).unsafe.error(
    SafeText.forStream(`branchlog: ${level}${parts.map(text).join(" ")}${reason}`, coloursAllowed(process.stderr))
  )
})
