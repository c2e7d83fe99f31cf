/**
 * The canonical entry types (spec §1.3, and pi 1.6's `usage` and `context_edit` of §15), in the
 * spec's order: the one list every module uses.
 */
export const canonicalEntryTypes = [
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "usage",
  "context_edit"
] as const
