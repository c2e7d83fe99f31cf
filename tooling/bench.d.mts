/** Median wall time of `fn` in milliseconds, after a warm-up. */
export declare const measure: (fn: () => unknown, options?: { runs?: number; warmup?: number }) => number
/** Median wall time of an async `fn` in milliseconds, after a warm-up. */
export declare const measureAsync: (fn: () => Promise<unknown>, options?: { runs?: number; warmup?: number }) => Promise<number>
/** Formats milliseconds. */
export declare const ms: (value: number) => string
/** Formats a rate per second. */
export declare const rate: (count: number, millis: number, unit: string) => string
/** Prints an aligned table; the first row is the heading. */
export declare const table: (rows: ReadonlyArray<ReadonlyArray<string>>) => void
/** `ours / baseline`, with a verdict against a target ratio when given. */
export declare const ratio: (ours: number, baseline: number, target?: number) => string
/** Medians of two functions measured with interleaved runs: `[a, b]` in milliseconds. */
export declare const measurePair: (a: () => unknown, b: () => unknown, options?: { runs?: number; warmup?: number }) => [number, number]
/** Medians of two self-timing functions (each resolves to its own milliseconds), runs interleaved: `[a, b]`. */
export declare const measurePairTimed: (
  a: () => Promise<number> | number,
  b: () => Promise<number> | number,
  options?: { runs?: number; warmup?: number }
) => Promise<[number, number]>
