/**
 * `@branchlog/store-sqlite` (being built: see issue 12).
 *
 * @since 0.1.0
 */
export {}
