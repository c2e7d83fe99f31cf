/**
 * Standard input as a service, so in-process runs (tests, other tools) can give `append` its input.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The whole of standard input, as text. */
export class Stdin extends Context.Tag("@branchlog/cli/Stdin")<Stdin, { readonly text: Effect.Effect<string> }>() {}

/** Reads the process's standard input to its end. */
export const layerProcess: Layer.Layer<Stdin> = Layer.succeed(Stdin, {
  text: Effect.async<string>((resume) => {
    if (process.stdin.isTTY) return resume(Effect.succeed(""))
    const chunks: Array<Buffer> = []
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk))
    process.stdin.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
    process.stdin.on("error", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
  })
})

/** Fixed text as standard input. */
export const layerText = (text: string): Layer.Layer<Stdin> => Layer.succeed(Stdin, { text: Effect.succeed(text) })
