/**
 * A hold's `Held`: its writes, each one transaction on the hold's connection (the session row
 * locked `FOR UPDATE`, the writer's cursor checked, the rows and the session row written and the
 * commit notified in one statement), retried through the lease on transient failures and
 * idempotent (a retry finds its own rows); and the change query both the hold and the store use.
 */
import { Line } from "@branchlog/session-core"
import { SessionFileConflictError } from "@branchlog/session-store/SessionError"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type { Appended, Changes, Cursor, Held, StoreFailure } from "@branchlog/session-store/TranscriptStore"
import { StaleCursorError } from "@branchlog/session-store/TranscriptStore"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type * as Lease from "./lease.js"
import * as Rows from "./rows.js"
import { redact, type Run, type StoreError, transaction } from "./sql.js"

/** What a hold needs of its store: the store's id (in its cursors), its cursors, its failure mapping. */
export interface Context {
  readonly id: symbol
  readonly cursorOf: (key: string, generation: number, seq: number) => Cursor
  readonly fail: (
    path: string,
    operation: string
  ) => (error: unknown) => Effect.Effect<never, StoreError>
}

const loadedOf = (
  ctx: Context,
  key: string,
  generation: number,
  seq: number,
  lines: ReadonlyArray<Line.ParsedLine>
) => StoreRows.loaded(lines, ctx.cursorOf(key, generation, seq))

let backups = 0

/** What changed in `ref` since `cursor`, in one statement (one snapshot). */
export const changesOn = (
  ctx: Context,
  run: Run,
  ref: SessionRef.PostgresRef,
  cursor: Cursor
): Effect.Effect<Changes, SqlError> =>
  Effect.suspend(() => {
    const key = SessionRef.format(ref)
    const seen = StoreRows.fromCursor(cursor, ctx.id, key)
    return Effect.map(Rows.tailRows(run, ref.id, seen?.generation ?? -1, seen?.seq ?? 0), (found): Changes => {
      if (found === undefined) return { _tag: "Missing" }
      if (found.head.lastSeq === 0) return { _tag: "Missing" }
      if (seen === undefined || seen.generation !== found.head.generation || seen.seq > found.head.lastSeq) {
        return { _tag: "Replaced" }
      }
      if (seen.seq === found.head.lastSeq) return { _tag: "Unchanged" }
      return StoreRows.appended(found.texts, seen.seq, ctx.cursorOf(key, found.head.generation, found.head.lastSeq))
    })
  })

/** The `Held` of one hold of `ref` (`key`: its canonical string) on `lease`. */
export const make = (ctx: Context, ref: SessionRef.PostgresRef, key: string, lease: Lease.Lease): Held => {
  const { cursorOf, fail, id } = ctx
  let vouched: { generation: number; seq: number; epoch: number } | undefined
  const remember = (generation: number, seq: number) => {
    vouched = { generation, seq, epoch: lease.epoch() }
    return cursorOf(key, generation, seq)
  }
  const appendedOf = (generation: number, after: number, count: number): Appended => ({
    cursor: remember(generation, after + count),
    positions: Array.from({ length: count }, (_, i) => ({ line: after + i + 1, offset: after + i })),
    end: StoreRows.end(after + count)
  })
  const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
    a.length === b.length && a.every((t, i) => t === b[i])
  const durable = (options: { readonly durability?: "none" | "fsync" } | undefined) => ({
    durable: options?.durability === "fsync"
  })
  return {
    ref,
    vouches: (cursor) => {
      const seen = StoreRows.fromCursor(cursor, id, key)
      return seen !== undefined && vouched !== undefined && vouched.epoch === lease.epoch() &&
        vouched.generation === seen.generation && vouched.seq === seen.seq
    },
    changes: (cursor) =>
      lease.use((run) => changesOn(ctx, run, ref, cursor)).pipe(Effect.catchAll(fail(key, "changes"))),
    create: (texts, options) => {
      let attempts = 0
      return lease.use((run) =>
        transaction(
          run,
          Effect.gen(function*() {
            attempts += 1
            const head = (yield* Rows.lockHead(run, ref.id, true))!
            if (head.lastSeq > 0) {
              // a retry of this create after a lost acknowledgement finds its own rows (a second
              // create of the same rows is a conflict like any other)
              if (
                attempts > 1 && head.lastSeq === texts.length &&
                same(yield* Rows.rowsBetween(run, ref.id, 0, texts.length), texts)
              ) {
                return appendedOf(head.generation, 0, texts.length)
              }
              return yield* new SessionFileConflictError({ path: redact(key), size: head.lastSeq, unit: "rows" })
            }
            yield* Rows.appendRows(run, ref.id, 0, texts, options?.unterminated === true && texts.length > 0)
            return appendedOf(head.generation, 0, texts.length)
          }),
          durable(options)
        )
      ).pipe(Effect.catchIf((e) => !(e instanceof SessionFileConflictError), fail(key, "create"))) as Effect.Effect<
        Appended,
        StoreFailure | SessionFileConflictError
      >
    },
    append: (cursor, texts, options) =>
      lease.use((run) =>
        transaction(
          run,
          Effect.gen(function*() {
            const seen = StoreRows.fromCursor(cursor, id, key)
            const head = yield* Rows.lockHead(run, ref.id, false)
            if (head === undefined || head.lastSeq === 0) {
              return yield* new StaleCursorError({ ref: redact(key), change: "Missing" })
            }
            if (seen === undefined || seen.generation !== head.generation || seen.seq > head.lastSeq) {
              return yield* new StaleCursorError({ ref: redact(key), change: "Replaced" })
            }
            if (seen.seq < head.lastSeq) {
              // idempotent: a retry after a lost acknowledgement finds its rows right after the cursor
              const after = yield* Rows.rowsBetween(run, ref.id, seen.seq, texts.length)
              if (texts.length > 0 && same(after, texts)) return appendedOf(head.generation, seen.seq, texts.length)
              return yield* new StaleCursorError({ ref: redact(key), change: "Appended" })
            }
            if (texts.length === 0) return appendedOf(head.generation, seen.seq, 0)
            yield* Rows.appendRows(run, ref.id, seen.seq, texts)
            return appendedOf(head.generation, seen.seq, texts.length)
          }),
          durable(options)
        )
      ).pipe(Effect.catchIf((e) => !(e instanceof StaleCursorError), fail(key, "append"))) as Effect.Effect<
        Appended,
        StoreFailure | StaleCursorError
      >,
    replace: (rows, options) =>
      lease.use((run) =>
        transaction(
          run,
          Effect.gen(function*() {
            const texts = rows.map(Line.serialize)
            const head = (yield* Rows.lockHead(run, ref.id, true))!
            const backup = options.backup === undefined || head.lastSeq === 0
              ? undefined
              : { name: `${key}.${options.backup}-${Date.now().toString(36)}-${++backups}`, label: options.backup }
            const generation = yield* Rows.replaceRows(run, ref.id, head, texts, backup)
            remember(generation, texts.length)
            return {
              backup: backup === undefined ? undefined : redact(backup.name),
              loaded: texts.length === 0
                ? StoreRows.missing
                : loadedOf(ctx, key, generation, texts.length, StoreRows.parse(texts))
            }
          })
        )
      ).pipe(Effect.catchAll(fail(key, "replace")))
  }
}
