/**
 * SessionIndex over the store's in-memory volume: the shared behavioural suite.
 */
import { memoryHarness } from "./indexHarness.js"
import { sessionIndexSuite } from "./SessionIndex.suite.js"

sessionIndexSuite(memoryHarness)
