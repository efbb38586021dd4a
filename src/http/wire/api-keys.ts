import type { IssuedKey } from '../../core/programs/api-keys.ts';
import type { IssuedKeyBody, RotatedKeyBody } from './responses.ts';

/** A key just issued: shown this once. */
export const issuedKeyToWire = (k: IssuedKey): IssuedKeyBody => ({
  id: k.id,
  key: k.key,
  prefix: k.prefix,
  mode: k.mode,
  note: 'Store this key now; it is not shown again.',
});

/** The replacement key (shown once) and the deadline of the one it replaces. */
export const rotatedKeyToWire = (r: IssuedKey & { retiredKeyId: number; rotateBy: Date | null }): RotatedKeyBody => ({
  id: r.id,
  key: r.key,
  prefix: r.prefix,
  mode: r.mode,
  retired_key_id: r.retiredKeyId,
  rotate_by: r.rotateBy?.toISOString() ?? null,
});
