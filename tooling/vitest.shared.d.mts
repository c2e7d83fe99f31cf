import type { UserConfig } from "vitest/config"
/** The shared vitest config of every branchlog package; `overrides.test` is merged into `test`. */
export declare const sharedConfig: (overrides?: { readonly test?: UserConfig["test"] }) => UserConfig
