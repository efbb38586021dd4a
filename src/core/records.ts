import { wrap } from '@mikro-orm/core';

/** A stored row as plain data: its camelCase properties, related rows by id, dates as `Date`. */
export type StoredRecord = Record<string, unknown>;

/** Never handed out of core: key hashes, signing secrets, password and session token hashes. */
const HIDDEN = new Set(['keyHash', 'signingSecret', 'passwordHash', 'tokenHash', 'csrfToken']);

/** An entity as a `StoredRecord`, in property order, with its secrets left out. */
export function toRecord(entity: object): StoredRecord {
  const plain = wrap(entity as never).toObject() as StoredRecord;
  return Object.fromEntries(Object.entries(plain).filter(([k]) => !HIDDEN.has(k)));
}
