/** One reference fixture. */
export interface Fixture {
  readonly name: string
  readonly path: string
  readonly bytes: Buffer
  readonly expected: {
    readonly context: unknown
    readonly tree: unknown
    readonly info: unknown
    readonly idsGenerated?: boolean
    readonly mayRewrite?: boolean
    readonly volatile?: ReadonlyArray<string>
    readonly [key: string]: unknown
  }
}
/** The fixtures folder. */
export declare const fixturesDir: () => string
/** Our differential run's fixtures (`fixtures/differential`). */
export declare const differentialDir: string
/** Every fixture with its expectation: the reference fixtures, then our differential ones. */
export declare const fixtures: () => Array<Fixture>
/** JSON round trip. */
export declare const json: (value: unknown) => unknown
/** Tree ids replaced by positions. */
export declare const structuralTree: (tree: unknown) => unknown
/** Entry-id fields replaced by a type tag. */
export declare const idsAsStrings: (value: unknown) => unknown
/** Values at JSON pointers replaced by a type tag. */
export declare const maskPointers: (value: unknown, pointers: ReadonlyArray<string>) => unknown
/** Both answers of one section made comparable by the fixtures README's rules. */
export declare const comparable: (fixture: Fixture, section: "context" | "tree" | "info", actual: unknown) => { got: unknown; want: unknown }
/** `comparable` for the three views at once: `{got, want}` each an object of `context`, `tree` and `info`. */
export declare const comparableViews: (
  fixture: Fixture,
  views: { readonly context: unknown; readonly tree: unknown; readonly info: unknown }
) => { got: Record<"context" | "tree" | "info", unknown>; want: Record<"context" | "tree" | "info", unknown> }
