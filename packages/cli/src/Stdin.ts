/**
 * Standard input as a service, read piece by piece as it arrives (so `append` can write each
 * line as soon as it is read), and replaceable so in-process runs (tests, other tools) can give
 * `append` its input.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** The service: `read` gives everything that arrived since the last read, waiting while nothing has; `None` at the end. */
export class Stdin extends Context.Tag("@branchlog/cli/Stdin")<Stdin, {
  readonly read: Effect.Effect<Option.Option<string>>
}>() {}

/** Above this much unread text, the process's stdin is paused until the next `read`. */
const HIGH_WATER = 1 << 20

/**
 * The process's standard input (decoded as UTF-8; a character split between chunks is kept whole).
 * A terminal gives no input. When the layer's scope closes, an input still open is let go.
 */
export const layerProcess: Layer.Layer<Stdin> = Layer.scoped(
  Stdin,
  Effect.suspend(() => {
    // `process.stdin` is touched only when a command reads it (creating it costs, and most never do)
    let stdin: NodeJS.ReadStream | undefined
    let buffered: Array<string> = []
    let size = 0
    let ended = false
    let started = false
    let wake: (() => void) | undefined
    const notify = () => {
      const resume = wake
      wake = undefined
      resume?.()
    }
    const start = () => {
      if (started) return
      started = true
      const input = stdin = process.stdin
      if (input.isTTY === true) {
        ended = true
        return
      }
      input.setEncoding("utf8")
      input.on("data", (chunk: string) => {
        buffered.push(chunk)
        size += chunk.length
        if (size > HIGH_WATER) input.pause()
        notify()
      })
      const end = () => {
        ended = true
        notify()
      }
      input.on("end", end)
      input.on("error", end)
    }
    const take = (): Option.Option<string> => {
      const text = buffered.join("")
      buffered = []
      size = 0
      if (!ended) stdin?.resume()
      return Option.some(text)
    }
    const read: Effect.Effect<Option.Option<string>> = Effect.suspend(() => {
      start()
      if (buffered.length > 0) return Effect.succeed(take())
      if (ended) return Effect.succeed(Option.none())
      return Effect.async<Option.Option<string>>((resume) => {
        wake = () => resume(Effect.succeed(buffered.length > 0 ? take() : Option.none()))
        return Effect.sync(() => {
          wake = undefined
        })
      })
    })
    // a command that stops before the end of input (a bad line) must not wait for the writer to close it
    const release = Effect.sync(() => {
      if (stdin === undefined || stdin.isTTY === true) return
      stdin.removeAllListeners("data")
      stdin.destroy()
    })
    return Effect.as(Effect.addFinalizer(() => release), { read })
  })
)

/** Fixed pieces of text as standard input, one per `read`, then its end. */
export const layerPieces = (pieces: ReadonlyArray<string>): Layer.Layer<Stdin> =>
  Layer.sync(Stdin, () => {
    let next = 0
    return { read: Effect.sync(() => (next < pieces.length ? Option.some(pieces[next++]!) : Option.none())) }
  })

/** Fixed text as standard input (one piece). */
export const layerText = (text: string): Layer.Layer<Stdin> => layerPieces(text === "" ? [] : [text])
