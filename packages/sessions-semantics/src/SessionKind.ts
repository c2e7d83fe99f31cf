/**
 * Session kinds and chat types (spec §14): what a session key (and optionally its store entry)
 * says about the conversation. Every function here is total: it never throws, whatever the input.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Grammar from "./internal/grammar.js"
import * as SessionKey from "./SessionKey.js"

/** The display kind of a session. */
export const SessionKind = Schema.Literal("global", "unknown", "cron", "spawn-child", "group", "direct")

/** The display kind of a session. */
export type SessionKind = typeof SessionKind.Type

/** The chat type a key reveals. */
export const ChatType = Schema.Literal("direct", "group", "channel", "unknown")

/** The chat type a key reveals. */
export type ChatType = typeof ChatType.Type

/** The fields of a session store entry that classification looks at. */
export interface EntryHints {
  readonly chatType?: string | null | undefined
  readonly spawnedBy?: string | null | undefined
}

/**
 * Classifies a key (and its entry), first match wins: the sentinels `global` and `unknown`; `cron`
 * (the rest starts `cron:`, also the legacy bare `cron:<jobId>`); `spawn-child` (the entry has a
 * non-blank `spawnedBy`); `group` (the entry's chat type is group or channel, or the key contains
 * `:group:` or `:channel:`); else `direct`.
 */
export const classify = (key: string | null | undefined, entry?: EntryHints): SessionKind => {
  const normalized = SessionKey.normalize(key)
  if (normalized === "global") return "global"
  if (normalized === "unknown") return "unknown"
  if (SessionKey.isCron(normalized)) return "cron"
  if (typeof entry?.spawnedBy === "string" && entry.spawnedBy.trim() !== "") return "spawn-child"
  const chatType = typeof entry?.chatType === "string" ? entry.chatType.trim().toLowerCase() : ""
  if (chatType === "group" || chatType === "channel") return "group"
  if (normalized.includes(":group:") || normalized.includes(":channel:")) return "group"
  return "direct"
}

/** Alias of `classify` under the spec's name (`classifySessionKind`). */
export const classifySessionKind = classify

const WHATSAPP_GROUP = /^(?:whatsapp:)?[^:]+@g\.us$/
const DISCORD_GUILD_CHANNEL = /^discord:(?:[^:]+:)?guild-[^:]+:channel-[^:]+$/
const LEGACY_GROUP = /^group:[^:]+(?::.*)?$/
const LEGACY_CHANNEL = /^channel:[^:]+(?::.*)?$/

const fromLegacyPattern = (scoped: string): ChatType => {
  if (LEGACY_GROUP.test(scoped) || WHATSAPP_GROUP.test(scoped)) return "group"
  if (LEGACY_CHANNEL.test(scoped) || DISCORD_GUILD_CHANNEL.test(scoped)) return "channel"
  return "unknown"
}

/**
 * The chat type of a key: from its peer token (`direct`/`dm` ⇒ direct, `group` ⇒ group, `channel`
 * ⇒ channel, at the positions of the grammar), else from the legacy patterns (`group:<id>`,
 * `…@g.us`, `discord:…guild-…:channel-…`), else `unknown`. A `room` token gives `unknown`, as in
 * OpenClaw. The thread suffix is ignored.
 */
export const chatTypeOf = (key: string | null | undefined): ChatType => {
  const scoped = SessionKey.scopedRest(key)
  if (scoped === "") return "unknown"
  const { base } = Grammar.splitThread(scoped)
  const scope = Grammar.parseScope(base, true)
  if (Either.isRight(scope)) {
    const s = scope.right
    if (s._tag === "Direct") return "direct"
    if (s._tag === "Conversation") return s.kind === "room" ? "unknown" : s.kind
  }
  return fromLegacyPattern(base)
}

/** Alias of `chatTypeOf` under the spec's name (`deriveSessionChatTypeFromKey`). */
export const chatTypeFromKey = chatTypeOf
