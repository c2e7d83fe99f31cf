/**
 * The store conformance suite against the JSONL backend (real temporary folders) and the memory
 * stand-in (one in-memory volume). `pnpm conformance` counts this file's results per backend.
 */
import { Conformance } from "@branchlog/session-store/testing"

Conformance.suite(Conformance.jsonl())
Conformance.suite(Conformance.memory())
