/**
 * A `Map` that can be forked in O(1) amortised: the copy-on-write index behind
 * `SessionState.clone`.
 *
 * Writes go to a private `top` map. `fork()` freezes the current `top` into a list of layers that
 * both sides then share and never change again, and gives each side a fresh, empty `top`. Reads
 * look in `top`, then in the frozen layers from the newest to the oldest. A deletion under frozen
 * layers leaves a tombstone in `top`.
 *
 * Layers are kept few by merging, as a log-structured index does: after a fork, a frozen layer at
 * least half the size of the one below it is merged into a new map with it (the shared maps are
 * never touched). A state forked after every small batch of rows (the store's cache after each
 * tail-only reopen) so keeps about log₂(n / batch) layers, and each key is copied O(log n) times
 * over the life of the index instead of n times per fork.
 *
 * Without frozen layers (a state that was never cloned) every operation is the plain `Map` call,
 * so the fold's hot path pays one method call and nothing else.
 *
 * Iteration follows `Map`'s order (first insertion), except that a key deleted and set again
 * while frozen layers exist keeps its first place.
 */

const TOMBSTONE: unique symbol = Symbol("LayeredMap.tombstone")
type Slot<V> = V | typeof TOMBSTONE
type Layer<K, V> = ReadonlyMap<K, Slot<V>>

const NO_LAYERS: ReadonlyArray<never> = []

/** A forkable map. Values must not be `undefined`. */
export class LayeredMap<K, V> implements ReadonlyMap<K, V> {
  private top: Map<K, Slot<V>>
  /** Shared, never changed; newest first. */
  private frozen: ReadonlyArray<Layer<K, V>>
  /** Live keys, kept while there are frozen layers (otherwise `top.size`). */
  private count: number

  constructor(top: Map<K, Slot<V>> = new Map(), frozen: ReadonlyArray<Layer<K, V>> = NO_LAYERS, count = top.size) {
    this.top = top
    this.frozen = frozen
    this.count = count
  }

  get size(): number {
    return this.frozen.length === 0 ? this.top.size : this.count
  }

  /** How many frozen layers lie under the private one (for tests and benchmarks). */
  get depth(): number {
    return this.frozen.length
  }

  get(key: K): V | undefined {
    const value = this.top.get(key)
    if (value !== undefined) return value === TOMBSTONE ? undefined : value
    return this.frozen.length === 0 ? undefined : this.lookDown(key)
  }

  has(key: K): boolean {
    return this.get(key) !== undefined
  }

  /** Sets `key`; `true` when it was not there before. */
  add(key: K, value: V): boolean {
    if (this.frozen.length === 0) {
      const size = this.top.size
      this.top.set(key, value)
      return this.top.size !== size
    }
    const fresh = !this.has(key)
    this.top.set(key, value)
    if (fresh) this.count += 1
    return fresh
  }

  set(key: K, value: V): this {
    this.add(key, value)
    return this
  }

  delete(key: K): boolean {
    if (this.frozen.length === 0) return this.top.delete(key)
    if (!this.has(key)) return false
    if (this.lookDown(key) === undefined) this.top.delete(key)
    else this.top.set(key, TOMBSTONE)
    this.count -= 1
    return true
  }

  /**
   * A copy that later writes on either side do not reach. O(1) but for merging layers, which is
   * O(n) now and then and O(log n) per key over the index's life.
   */
  fork(): LayeredMap<K, V> {
    const size = this.size
    if (this.top.size > 0) {
      this.frozen = compact([this.top, ...this.frozen])
      this.top = new Map()
      this.count = size
    }
    return new LayeredMap<K, V>(new Map(), this.frozen, size)
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this)
  }

  *entries(): MapIterator<[K, V]> {
    if (this.frozen.length === 0) {
      for (const entry of this.top as Map<K, V>) yield entry
      return
    }
    const layers: ReadonlyArray<Layer<K, V>> = [...this.frozen].reverse().concat([this.top])
    for (let i = 0; i < layers.length; i++) {
      for (const key of layers[i]!.keys()) {
        if (insertedBelow(layers, i, key)) continue
        const value = this.get(key)
        if (value !== undefined) yield [key, value]
      }
    }
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries()
  }

  get [Symbol.toStringTag](): string {
    return "LayeredMap"
  }

  private lookDown(key: K): V | undefined {
    for (const layer of this.frozen) {
      const value = layer.get(key)
      if (value !== undefined) return value === TOMBSTONE ? undefined : value
    }
    return undefined
  }
}

/** `true` when a layer older than `layers[i]` (oldest first) already holds `key`. */
const insertedBelow = <K, V>(layers: ReadonlyArray<Layer<K, V>>, i: number, key: K): boolean => {
  for (let j = 0; j < i; j++) if (layers[j]!.has(key)) return true
  return false
}

/** Merges the newest layers while one is at least half the size of the one below it. */
const compact = <K, V>(layers: Array<Layer<K, V>>): ReadonlyArray<Layer<K, V>> => {
  while (layers.length >= 2 && layers[0]!.size * 2 >= layers[1]!.size) {
    const [newer, older] = layers as [Layer<K, V>, Layer<K, V>]
    const bottom = layers.length === 2
    const merged = new Map(older)
    for (const [key, value] of newer) {
      if (value === TOMBSTONE && bottom) merged.delete(key)
      else merged.set(key, value)
    }
    layers.splice(0, 2, merged)
  }
  return layers
}
