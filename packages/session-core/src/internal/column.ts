/**
 * A growable column of numbers in chunks of typed arrays, forked copy-on-write: `fork` copies
 * only the list of chunks, and each side copies a chunk it shares just before it first writes
 * into it. A state's per-entry numbers (line, byte offset, parent position) live in columns, so
 * that cloning the state of a 100k-entry session (what every reopen from the cache does) does not
 * copy three 100k-element arrays: on V8 a fresh large array costs its page faults too, about
 * 30 ns an element, where forking a column costs a few hundred nanoseconds.
 */

/** log2 of a full chunk's length. */
const SHIFT = 12
/** A full chunk's length (4,096 numbers, 32 KiB). */
const CHUNK = 1 << SHIFT
const MASK = CHUNK - 1
/** The first chunk's first capacity: a small session's columns stay small. */
const FIRST = 16

/** A column of numbers (float64: byte offsets of files beyond 2 GiB stay exact). */
export class NumberColumn {
  /** Every chunk full (`CHUNK` long) but the last, which may have a smaller capacity. */
  private chunks: Array<Float64Array>
  /** `owned[c]`: chunk `c` is this column's alone (it may write into it). */
  private owned: Array<boolean>
  private count: number

  constructor() {
    this.chunks = []
    this.owned = []
    this.count = 0
  }

  /** How many numbers the column holds. */
  get length(): number {
    return this.count
  }

  /** The number at `i` (`0 <= i < length`; outside, `undefined` or a stale value: callers check). */
  get(i: number): number {
    return this.chunks[i >>> SHIFT]![i & MASK]!
  }

  /** Replaces the number at `i` (`0 <= i < length`). */
  set(i: number, value: number): void {
    this.writable(i >>> SHIFT)[i & MASK] = value
  }

  /** Appends a number. */
  push(value: number): void {
    const i = this.count
    const c = i >>> SHIFT
    const at = i & MASK
    let chunk = this.chunks[c]
    if (chunk === undefined) {
      chunk = new Float64Array(c === 0 ? FIRST : CHUNK)
      this.chunks.push(chunk)
      this.owned.push(true)
    } else if (at >= chunk.length) {
      // the first chunk grows by doubling up to a full chunk (this copy is the column's own)
      const grown = new Float64Array(Math.min(CHUNK, chunk.length * 2))
      grown.set(chunk)
      chunk = grown
      this.chunks[c] = chunk
      this.owned[c] = true
    } else if (!this.owned[c]) {
      chunk = this.writable(c)
    }
    chunk[at] = value
    this.count = i + 1
  }

  /** A column with the same numbers; later writes to either side do not reach the other. */
  fork(): NumberColumn {
    const copy = new NumberColumn()
    copy.chunks = this.chunks.slice()
    copy.count = this.count
    copy.owned = this.chunks.map(() => false)
    this.owned.fill(false)
    return copy
  }

  /** Chunk `c`, copied first if it is shared. */
  private writable(c: number): Float64Array {
    const chunk = this.chunks[c]!
    if (this.owned[c]) return chunk
    const own = chunk.slice()
    this.chunks[c] = own
    this.owned[c] = true
    return own
  }

  /** The numbers in order (for tests and debugging). */
  toArray(): Array<number> {
    const out = new Array<number>(this.count)
    for (let i = 0; i < this.count; i++) out[i] = this.get(i)
    return out
  }
}
