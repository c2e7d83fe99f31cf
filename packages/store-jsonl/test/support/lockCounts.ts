/** Which append path ran, seen through a `TranscriptLock` in context that counts its calls. */
import * as Effect from "effect/Effect"
import { TranscriptLock } from "../../src/TranscriptLock.js"

/** Counts the lock's calls: one-step attempts, those that took the lock, and holds taken as an effect. */
export const counting = () => {
  const counts = { tries: 0, fast: 0, slow: 0 }
  const wrap = Effect.updateService(TranscriptLock, (lock) => ({
    ...lock,
    withLock: <A, E, R>(
      file: string,
      effect: Effect.Effect<A, E, R>,
      options?: Parameters<typeof lock.withLock>[2]
    ) => {
      counts.slow += 1
      return lock.withLock(file, effect, options)
    },
    unsafeTryLock: (fiber: Parameters<NonNullable<typeof lock.unsafeTryLock>>[0], file: string, options?: object) => {
      counts.tries += 1
      const release = lock.unsafeTryLock?.(fiber, file, options)
      if (release !== undefined) counts.fast += 1
      return release
    }
  }))
  return { counts, wrap }
}
