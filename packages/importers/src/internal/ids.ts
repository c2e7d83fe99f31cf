/**
 * Entry ids derived from source ids (pure, deterministic): the same source gives the same ids, so
 * importing it again finds its entries already there. An id is the source id's first 8 hex
 * characters when it starts with them (a UUID: `uuid` → id, as the reader sees it), else 8 hex
 * characters of an FNV-1a hash of it; a collision in one session is resolved by hashing again,
 * in file order.
 */

/** 8 lowercase hex characters of the FNV-1a hash of `text`. */
export const hash8 = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0")
}

/** Mints the ids of one session. */
export interface IdMinter {
  /** The id of `sourceKey` (the same key gives the same id). */
  readonly idOf: (sourceKey: string) => string
  /** Whether `sourceKey` has an id already. */
  readonly has: (sourceKey: string) => boolean
}

/** A minter for one session. */
export const makeMinter = (): IdMinter => {
  const byKey = new Map<string, string>()
  const taken = new Set<string>()
  return {
    has: (key) => byKey.has(key),
    idOf: (key) => {
      const known = byKey.get(key)
      if (known !== undefined) return known
      const hex = /^[0-9a-fA-F]{8}/.exec(key)
      let id = hex !== null ? hex[0].toLowerCase() : hash8(key)
      for (let n = 1; taken.has(id); n++) id = hash8(`${key}#${n}`)
      taken.add(id)
      byKey.set(key, id)
      return id
    }
  }
}
