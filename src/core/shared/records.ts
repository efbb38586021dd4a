import { wrap } from '@mikro-orm/core';

/** A stored row as plain data: its camelCase properties, related rows by id, dates as `Date`. */
export type StoredRecord = Record<string, unknown>;

/** Never handed out of core: key hashes, signing secrets, password and session token hashes. */
const HIDDEN = ['keyHash', 'signingSecret', 'passwordHash', 'tokenHash', 'csrfToken'] as const;
const HIDDEN_KEYS: ReadonlySet<string> = new Set(HIDDEN);

/** `toRecord` of an entity typed `E` (`InferEntity<typeof X>`): its properties less the hidden ones. */
export type StoredRow<E> = { [K in Exclude<keyof E & string, (typeof HIDDEN)[number]>]: E[K] };

/** An entity as a `StoredRecord`, in property order, with its secrets left out. */
export function toRecord<E extends object>(entity: E): StoredRow<E> {
  const plain = wrap(entity as never).toObject() as StoredRecord;
  return Object.fromEntries(Object.entries(plain).filter(([k]) => !HIDDEN_KEYS.has(k))) as StoredRow<E>;
}
