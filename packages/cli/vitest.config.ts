import { sharedConfig } from "@branchlog/tooling/vitest"

// the longest suite of the workspace's test command (its real processes): on a worker per core it
// takes the larger share of the machine while the other suites run, instead of running alone on one
// core at the end (on two cores, half the cores made it the run's last four minutes alone)
export default sharedConfig({ shareOfCores: 1 })
