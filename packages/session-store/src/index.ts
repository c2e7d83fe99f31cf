/**
 * Placeholder: this package is not built yet. See its README for what it will hold.
 */
export {}
