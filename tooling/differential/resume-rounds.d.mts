/** The shapes resumed: generate.mjs's `v3`, `openclaw`, `v2`. */
export declare const RESUME_SHAPES: ReadonlyArray<string>
/** What one run counted. */
export interface ResumeTally {
  readonly files: number
  readonly skipped: number
  readonly rounds: number
  readonly comparisons: number
  readonly mismatches: ReadonlyArray<{ readonly seed: number; readonly what: string; readonly file: string }>
  readonly resumes: {
    readonly current: number
    readonly caughtUp: number
    readonly built: number
    readonly rebuilt: number
    readonly rebuiltUnbounded: number
  }
  readonly reasons: ReadonlyMap<string, number>
  readonly piRows: number
  readonly notFound: number
  readonly branchlogOps: number
}
/** The run's options. */
export interface ResumeOptions {
  readonly count: number
  readonly seed: number
  readonly ops: number
  readonly rounds: number
  readonly shapes: ReadonlyArray<string>
  readonly work: string
  readonly out: string
}
/** Rounds of pi 0.73.1 appends and branchlog appends, the bounded resume compared with the full open after each. */
export declare const runResumeRounds: (modules: unknown, Pi: unknown, options: ResumeOptions) => Promise<ResumeTally>
/** The report's lines. */
export declare const reportLines: (tally: ResumeTally, options: ResumeOptions) => Array<string>
