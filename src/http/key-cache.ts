import type { AuthenticatedKey } from '../core/programs/api-keys.ts';

/**
 * Short-lived per-process cache of API-key lookups (hash → key), so a hot key costs no query per
 * request. Entries expire after `ttlMs`; a retired key is refused at most `ttlMs` later.
 */
export type KeyCache = {
  get(hash: string, now: number): AuthenticatedKey | undefined;
  set(hash: string, key: AuthenticatedKey, now: number): void;
  clear(): void;
};

export function createKeyCache(ttlMs: number, max = 10_000): KeyCache {
  const entries = new Map<string, { key: AuthenticatedKey; until: number }>();
  return {
    get(hash, now) {
      const e = entries.get(hash);
      if (!e) return undefined;
      if (e.until <= now) {
        entries.delete(hash);
        return undefined;
      }
      return e.key;
    },
    set(hash, key, now) {
      if (entries.size >= max) entries.delete(entries.keys().next().value as string);
      entries.set(hash, { key, until: now + ttlMs });
    },
    clear() {
      entries.clear();
    },
  };
}
