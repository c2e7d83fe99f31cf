/**
 * Where entry ids and session ids come from. Entry ids are the first 8 hex characters of a UUID
 * (re-drawn on a collision, the full UUID after 100 collisions, as the references do); session
 * ids are UUIDv7 built from the Effect `Clock` and `Random`, so `TestClock` and a seeded `Random`
 * make them repeatable. Provide {@link deterministic} in tests; without a provided `IdSource`
 * the default draws from `crypto.randomUUID`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"

/** The service: a source of random UUID strings (lowercase hex with dashes). */
export interface IdSourceShape {
  /** A fresh UUID; its first 8 characters make an entry id. */
  readonly uuid: () => string
}

/** The IdSource service tag. */
export class IdSource extends Context.Tag("@branchlog/session-store/IdSource")<IdSource, IdSourceShape>() {}

/** The default source: `crypto.randomUUID`. */
export const random: IdSourceShape = { uuid: () => globalThis.crypto.randomUUID() }

/** A repeatable source for tests: UUIDs from a counter mixed with a seed. */
export const makeDeterministic = (seed = 1): IdSourceShape => {
  let n = 0
  return {
    uuid: () => {
      n += 1
      const a = (Math.imul(n ^ seed, 0x9e3779b1) >>> 0).toString(16).padStart(8, "0")
      const b = (n >>> 0).toString(16).padStart(12, "0")
      return `${a}-0000-4000-8000-${b}`
    }
  }
}

/** The default layer (`crypto.randomUUID`). */
export const layer: Layer.Layer<IdSource> = Layer.succeed(IdSource, random)

/** A repeatable layer for tests. */
export const deterministic = (seed = 1): Layer.Layer<IdSource> => Layer.sync(IdSource, () => makeDeterministic(seed))

/** The provided source, or the default one. */
export const current: Effect.Effect<IdSourceShape> = Effect.map(
  Effect.serviceOption(IdSource),
  (option) => option._tag === "Some" ? option.value : random
)

/** How many collisions before an entry id falls back to the full UUID. */
export const MAX_COLLISIONS = 100

/** An 8-hex entry id not accepted by `taken` (full UUID after {@link MAX_COLLISIONS} collisions). */
export const entryId = (source: IdSourceShape, taken: (id: string) => boolean): string => {
  let uuid = source.uuid()
  for (let attempt = 0; attempt < MAX_COLLISIONS; attempt++) {
    const id = uuid.slice(0, 8).toLowerCase()
    if (!taken(id)) return id
    uuid = source.uuid()
  }
  return uuid
}

const hex = (value: number, digits: number): string => value.toString(16).padStart(digits, "0")

/** A UUIDv7 (RFC 9562): 48-bit Unix milliseconds from `Clock`, version 7, variant 10, 74 bits from `Random`. */
export const uuidv7: Effect.Effect<string> = Effect.gen(function*() {
  const millis = yield* Clock.currentTimeMillis
  const r1 = yield* Random.nextIntBetween(0, 0x1000) // 12 bits
  const r2 = yield* Random.nextIntBetween(0, 0x4000) // 14 bits
  const r3 = yield* Random.nextIntBetween(0, 0x1000000) // 24 bits
  const r4 = yield* Random.nextIntBetween(0, 0x1000000) // 24 bits
  const time = hex(Math.max(0, Math.floor(millis)) % 2 ** 48, 12)
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hex(r1, 3)}-${hex(0x8000 | r2, 4)}-${hex(r3, 6)}${hex(r4, 6)}`
})
