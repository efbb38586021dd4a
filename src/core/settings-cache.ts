import type { CoreDeps, Clock } from './deps.ts';
import { Program } from './entities/program.ts';
import type { ExpiringMap, ProgramSnapshot } from './ports.ts';

/**
 * Program settings and provider signing secrets are read by every sale, click and webhook but
 * change rarely (admin API, CLI). Each process keeps what it read in plain maps for
 * `SETTINGS_CACHE_MS` (`CoreCaches`: programs, the webhook route's secrets, the clicks' partners),
 * saving a query per call, and the ORM work a result-cache hit still did (hydrating an entity into
 * the caller's context: about 40 µs of CPU each; `npm run bench`). The maps are created with the
 * app context (`createCoreCaches`) and reach the use-cases on `CoreDeps`; expiry reads the injected
 * clock. The writers clear the entry at once in their own process; another process (a separate
 * worker, the admin CLI) sees a change at most `SETTINGS_CACHE_MS` later, the same bound as the
 * API-key cache.
 */
export const SETTINGS_CACHE_MS = 5_000;

/**
 * A map whose entries expire `SETTINGS_CACHE_MS` after they were set, by the injected clock.
 * Bounded: at `max` entries it starts over, so requests naming unknown ids cannot grow it forever.
 */
export function expiringMap<K, V>(clock: Clock, max = 10_000): ExpiringMap<K, V> {
  const map = new Map<K, { value: V; until: number }>();
  return {
    get(key) {
      const hit = map.get(key);
      return hit && hit.until > clock().getTime() ? hit.value : undefined;
    },
    set(key, value) {
      if (map.size >= max) map.clear();
      map.set(key, { value, until: clock().getTime() + SETTINGS_CACHE_MS });
    },
    delete(key) {
      map.delete(key);
    },
    clear() {
      map.clear();
    },
  };
}

/**
 * The program's settings, read at most once per `SETTINGS_CACHE_MS` in this process.
 * @throws the ORM's NotFoundError when there is no such program (never remembered).
 */
export async function findProgramSettings(
  deps: Pick<CoreDeps, 'em' | 'caches'>,
  programId: number,
): Promise<ProgramSnapshot> {
  const hit = deps.caches.programs.get(programId);
  if (hit) return hit;
  const row = await deps.em.findOneOrFail(Program, { id: programId }, { disableIdentityMap: true });
  const program: ProgramSnapshot = Object.freeze({ ...row });
  deps.caches.programs.set(programId, program);
  return program;
}
