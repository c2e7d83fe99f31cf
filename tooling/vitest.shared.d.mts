import type { UserConfig } from "vitest/config"
/**
 * The shared vitest config of every branchlog package; `overrides.test` is merged into `test`;
 * `overrides.shareOfCores` (default ½) sets how many of the machine's cores its test files run on at once.
 */
export declare const sharedConfig: (
  overrides?: { readonly test?: UserConfig["test"]; readonly shareOfCores?: number }
) => UserConfig
