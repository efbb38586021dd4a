import { z } from 'zod';
import { toRecord, type StoredRow } from '../../core/shared/records.ts';
import type { ListableKind, ListedRecord } from '../../core/reporting/listable.ts';

/** `createdAt` → `created_at`: the key `recordToWire` writes for a property. */
export type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

/**
 * `recordToWire`'s output for a record typed `R`: snake_case keys, dates as ISO strings. A stored
 * row has every property (a missing value is `null`; JSON would leave out an `undefined` one).
 */
export type WireRecord<R> = {
  [K in keyof R & string as SnakeCase<K>]-?: Exclude<R[K], undefined> extends infer V
    ? V extends Date
      ? string
      : V
    : never;
};

/** The wire form of an entity typed `E` (`InferEntity<typeof X>`), as `rowToWire` writes it. */
export type RowWire<E> = WireRecord<StoredRow<E>>;

/** One row of `GET /programs/:id/:list` for a list `K`, and that route's body. */
export type ListRowWire<K extends ListableKind> = WireRecord<ListedRecord<K>>;
export type RecordListWire<K extends ListableKind> = { [P in K]: ListRowWire<P>[] };

/**
 * A stored row as the admin API shows it: snake_case columns, related rows by id, dates as ISO
 * strings (core has already left the secrets out). Keys keep the row's property order.
 */
export function recordToWire<R extends object>(record: R): WireRecord<R> {
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [
      k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      v instanceof Date ? v.toISOString() : v,
    ]),
  ) as WireRecord<R>;
}

/** A row returned by a use-case (an entity) in its wire form. */
export const rowToWire = <E extends object>(row: E): RowWire<E> => recordToWire(toRecord(row));

/** The document's schema of any `recordToWire` row (the entity-specific ones: ../openapi/entity-rows.ts). */
export const row = z.looseObject({
  id: z.union([z.number().int(), z.string()]).meta({ description: 'Integer, or the click id for clicks' }),
});
