// ESLint for the whole workspace: typescript-eslint's recommended rules, and dprint formatting
// through @effect/eslint-plugin with the Effect monorepo's settings.
import effect from "@effect/eslint-plugin"
import { builtinModules } from "node:module"
import tseslint from "typescript-eslint"

// @effect/vitest's `layer()` (and `it.layer`) assigns its methods onto vitest's shared `it`; the test
// files of a package share their worker (`isolate: false`), so every file after it lost its
// TestClock and got that layer's services from its own `it.effect`
const sharedItMessage = "@effect/vitest's layer() changes vitest's shared `it` for every later test file of the " +
  "worker: build the layer in the test (Layer.buildWithScope in a beforeAll) or provide it per test"
const sharedIt = { name: "@effect/vitest", importNames: ["layer"], message: sharedItMessage }

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
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-imports": ["error", { paths: [sharedIt] }],
      "no-restricted-syntax": ["error", {
        selector: "CallExpression[callee.object.name='it'][callee.property.name='layer']",
        message: sharedItMessage
      }]
    }
  },
  // the storage interface knows no platform and no backend: no Node module, nothing of a store
  // package (a cycle of value imports anywhere is `pnpm lint:cycles`, dpdm)
  {
    files: ["packages/session-store/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [
          ...builtinModules.filter((name) => !name.startsWith("_")).map((name) => ({
            name,
            message: "session-store is the storage interface: Node's modules belong to a backend (store-jsonl)"
          })),
          sharedIt
        ],
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
