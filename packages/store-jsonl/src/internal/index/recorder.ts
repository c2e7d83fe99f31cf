/** The scan's line observer that fills the path index's row tables while a full read goes by. */
import type { Line } from "@branchlog/session-core"
import { Tables } from "@branchlog/session-store/PathIndex"
import type * as TranscriptFile from "../../TranscriptFile.js"
import type { LineObserver } from "../jsonl/scan.js"

/**
 * A line observer that fills `Tables` (a fresh table on each attempt of the scan), sized
 * for lines of about 512 bytes in a file of `size` bytes (fewer copies as they grow).
 */
export const recorder = (size = 0): { readonly observer: LineObserver; readonly tables: () => Tables } => {
  const rows = Math.max(1024, Math.ceil(size / 512))
  let tables = new Tables(rows, rows * 2)
  return {
    observer: {
      start: () => {
        tables = new Tables(rows, rows * 2)
      },
      line: (l: TranscriptFile.Line, parsed: Line.ParsedLine) => tables.row(l.offset, l.byteLength, parsed)
    },
    tables: () => tables
  }
}
