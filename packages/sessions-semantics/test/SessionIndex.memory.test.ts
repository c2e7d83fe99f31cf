/**
 * SessionIndex over the store's in-memory volume: the shared behavioural suite.
 */
import { Harness } from "@branchlog/store-jsonl/testing"
import { sessionIndexSuite } from "./SessionIndex.suite.js"

sessionIndexSuite(Harness.memoryHarness)
