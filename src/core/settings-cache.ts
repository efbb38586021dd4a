/**
 * Program settings and provider signing secrets are read by every sale, click and webhook but
 * change rarely (admin API, CLI). Program reads go through MikroORM's result cache (one per
 * process, shared by every fork) for `SETTINGS_CACHE_MS`, saving a query per call (measured by
 * `npm run bench`); the webhook route's secrets and the clicks' partners are kept in plain maps
 * for as long (provider-secrets.ts, record-click.ts). The writers clear the entry at once in their
 * own process; another process (a separate worker, the admin CLI) sees a change at most
 * `SETTINGS_CACHE_MS` later, the same bound as the API-key cache.
 */
export const SETTINGS_CACHE_MS = 5_000;

/** Named result-cache entries (`cache` option of `em.findOne`); `[0]` is the key to clear. */
export const settingsCache = {
  program: (programId: number): [string, number] => [`program-${programId}`, SETTINGS_CACHE_MS],
};
