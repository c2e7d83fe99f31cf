/**
 * `@branchlog/store-postgres` (being built: see issue 13).
 *
 * @since 0.1.0
 */
export {}
