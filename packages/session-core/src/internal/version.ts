/** The current session format version, in one place (the constructors use it without importing `Entry`). */
export const CURRENT_SESSION_VERSION = 3
