// Benchmark helpers shared by the packages' `bench` scripts. Figures, not pass/fail: the
// machines are shared and noisy, so every figure is the median of several runs after a warm-up,
// printed beside a baseline measured the same way in the same process.

/** Runs `fn` `warmup` times, then `runs` times; returns the median wall time in milliseconds. */
export const measure = (fn, { runs = 7, warmup = 2 } = {}) => {
  for (let i = 0; i < warmup; i++) fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint()
    fn()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

/** Async variant of {@link measure}. */
export const measureAsync = async (fn, { runs = 7, warmup = 2 } = {}) => {
  for (let i = 0; i < warmup; i++) await fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

/** Formats milliseconds. */
export const ms = (value) => (value < 10 ? value.toFixed(2) : value.toFixed(1)) + " ms"

/** Formats a rate per second with a unit. */
export const rate = (count, millis, unit) => {
  const perSecond = count / (millis / 1000)
  return perSecond >= 1e6
    ? `${(perSecond / 1e6).toFixed(2)} M${unit}/s`
    : perSecond >= 1e3
    ? `${(perSecond / 1e3).toFixed(1)} k${unit}/s`
    : `${perSecond.toFixed(1)} ${unit}/s`
}

/** Prints rows as an aligned table. `rows` are arrays of strings; the first is the heading. */
export const table = (rows) => {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c] ?? "").length)))
  for (const [r, row] of rows.entries()) {
    console.log(row.map((cell, c) => String(cell ?? "").padEnd(widths[c])).join("  ").trimEnd())
    if (r === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "))
  }
}

/** `ours / baseline` as `1.23×`, with a verdict against a target ratio when given. */
export const ratio = (ours, baseline, target) => {
  const value = ours / baseline
  const text = `${value.toFixed(2)}×`
  return target === undefined ? text : `${text} (target ≤ ${target}×: ${value <= target ? "met" : "MISSED"})`
}

/**
 * Measures two functions with their runs interleaved (a, b, a, b, …), so that drift in the
 * machine's speed falls on both alike; returns both medians in milliseconds.
 */
export const measurePair = (a, b, { runs = 9, warmup = 2 } = {}) => {
  for (let i = 0; i < warmup; i++) {
    a()
    b()
  }
  const timesA = []
  const timesB = []
  const time = (fn, into) => {
    const start = process.hrtime.bigint()
    fn()
    into.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      time(a, timesA)
      time(b, timesB)
    } else {
      time(b, timesB)
      time(a, timesA)
    }
  }
  const median = (times) => times.sort((x, y) => x - y)[Math.floor(times.length / 2)]
  return [median(timesA), median(timesB)]
}

/**
 * {@link measurePair} for functions that time themselves: each returns (a promise of) the
 * milliseconds of what it measures (e.g. from a process's spawn to its first write), so that its
 * set-up and clean-up are not counted. Runs interleaved; returns both medians.
 */
export const measurePairTimed = async (a, b, { runs = 9, warmup = 2 } = {}) => {
  for (let i = 0; i < warmup; i++) {
    await a()
    await b()
  }
  const timesA = []
  const timesB = []
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      timesA.push(await a())
      timesB.push(await b())
    } else {
      timesB.push(await b())
      timesA.push(await a())
    }
  }
  const median = (times) => times.sort((x, y) => x - y)[Math.floor(times.length / 2)]
  return [median(timesA), median(timesB)]
}
