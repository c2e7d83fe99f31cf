import { sharedConfig } from "@branchlog/tooling/vitest"

export default sharedConfig({ test: { globalSetup: ["./test/support/globalSetup.ts"] } })
