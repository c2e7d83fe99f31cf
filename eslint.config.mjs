// ESLint for the whole workspace: typescript-eslint's recommended rules, and dprint formatting
// through @effect/eslint-plugin with the Effect monorepo's settings.
import effect from "@effect/eslint-plugin"
import { builtinModules } from "node:module"
import tseslint from "typescript-eslint"

/**
 * The modules of session-store that still hold the JSONL backend (files, locks, snapshots, the
 * sidecar index and catalog, the memory file system, the child-process test helpers) and import
 * Node's modules: they move to @branchlog/store-jsonl (issue 28), and this list shrinks to nothing.
 * Every other module of session-store is the storage interface and what is built on it alone.
 */
export const sessionStoreNodeModules = [
  "FileSnapshot.ts",
  "IdSource.ts",
  "JsonlStore.ts",
  "SessionCatalog.ts",
  "internal/catalogInfo.ts",
  "internal/crc32.ts",
  "internal/lines.ts",
  "internal/lockService.ts",
  "internal/lockTakeover.ts",
  "internal/memoryBackend.ts",
  "internal/memoryVolume.ts",
  "internal/nodeBackend.ts",
  "internal/nodeHandles.ts",
  "internal/nodeKnownAppends.ts",
  "internal/nodeLockFiles.ts",
  "internal/nodePaths.ts",
  "internal/repair/utf8.ts",
  "testing/Children.ts",
  "testing/Harness.ts",
  "testing/conformance/fileBackends.ts"
].map((file) => `packages/session-store/src/${file}`)

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/.turbo/**", "**/*.d.mts", "fixtures/**"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.mjs"],
    plugins: { "@effect": effect },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        destructuredArrayIgnorePattern: "^_"
      }],
      "@typescript-eslint/no-namespace": "off",
      // Data.TaggedEnum members without fields are written `{}`
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/consistent-type-imports": "error"
    }
  },
  // the storage interface knows no platform and no backend: no Node module, nothing of a store
  // package (a cycle of value imports anywhere is `pnpm lint:cycles`, dpdm)
  {
    files: ["packages/session-store/src/**/*.ts"],
    ignores: sessionStoreNodeModules,
    rules: {
      "no-restricted-imports": ["error", {
        paths: builtinModules.filter((name) => !name.startsWith("_")).map((name) => ({
          name,
          message: "session-store is the storage interface: Node's modules belong to a backend (store-jsonl)"
        })),
        patterns: [
          {
            group: ["node:*"],
            message: "session-store is the storage interface: Node's modules belong to a backend (store-jsonl)"
          },
          {
            group: ["@branchlog/store-*"],
            message: "session-store is the storage interface: it may not know its backends"
          }
        ]
      }]
    }
  }
)
