/** The repository's root folder. */
export declare const root: string
/** A workspace package: its folder and its parsed package.json. */
export interface WorkspacePackage {
  readonly dir: string
  readonly manifest: { readonly name: string; readonly [key: string]: any }
}
/** The workspace packages under packages/. */
export declare const workspacePackages: () => ReadonlyArray<WorkspacePackage>
/** The public (published) packages under packages/. */
export declare const publicPackages: () => ReadonlyArray<WorkspacePackage>
/** A package's public module names (its `src/*.ts` but index.ts and bin entry points). */
export declare const publicModules: (dir: string, manifest: Record<string, any>) => ReadonlyArray<string>
/** The exports a package should have, in the workspace (`source: true`) or as published. */
export declare const expectedExports: (
  dir: string,
  manifest: Record<string, any>,
  options: { readonly source: boolean }
) => Record<string, unknown>
