import { sharedConfig } from "@branchlog/tooling/vitest"

export default sharedConfig()
