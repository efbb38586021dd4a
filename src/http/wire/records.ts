import { z } from 'zod';
import { toRecord, type StoredRecord } from '../../core/records.ts';

/**
 * A stored row as the admin API shows it: snake_case columns, related rows by id, dates as ISO
 * strings (core has already left the secrets out). Keys keep the row's property order.
 */
export function recordToWire(record: StoredRecord): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [
      k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      v instanceof Date ? v.toISOString() : v,
    ]),
  );
}

/** A row returned by a use-case (an entity) in its wire form. */
export const rowToWire = (row: object): Record<string, unknown> => recordToWire(toRecord(row));

/** The document's schema of any `recordToWire` row (the entity-specific ones: ../openapi/entity-rows.ts). */
export const row = z.looseObject({
  id: z.union([z.number().int(), z.string()]).meta({ description: 'Integer, or the click id for clicks' }),
});
