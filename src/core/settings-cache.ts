import type { EntityManager } from '@mikro-orm/sql';
import { Program, type IProgram } from './entities/program.ts';

/**
 * Program settings and provider signing secrets are read by every sale, click and webhook but
 * change rarely (admin API, CLI). Each process keeps what it read in a plain map for
 * `SETTINGS_CACHE_MS` (programs here, the webhook route's secrets in provider-secrets.ts, the
 * clicks' partners in record-click.ts), saving a query per call, and the ORM work a result-cache
 * hit still did (hydrating an entity into the caller's context: about 40 µs of CPU each;
 * `npm run bench`). The writers clear the entry at once in their own process; another process (a
 * separate worker, the admin CLI) sees a change at most `SETTINGS_CACHE_MS` later, the same bound
 * as the API-key cache.
 */
export const SETTINGS_CACHE_MS = 5_000;

/** A program's settings as read through the cache: a frozen copy shared by callers, not an entity. */
export type ProgramSnapshot = Readonly<IProgram>;

type CachedProgram = { program: ProgramSnapshot; until: number };
/** Per database (tests open several in one process). Bounded: unknown ids are never kept anyway. */
const programCaches = new WeakMap<object, Map<number, CachedProgram>>();
const PROGRAM_CACHE_MAX = 10_000;

function programCacheOf(em: EntityManager): Map<number, CachedProgram> {
  const driver = em.getDriver();
  let cache = programCaches.get(driver);
  if (!cache) {
    cache = new Map();
    programCaches.set(driver, cache);
  }
  return cache;
}

/**
 * The program's settings, read at most once per `SETTINGS_CACHE_MS` in this process.
 * @throws the ORM's NotFoundError when there is no such program (never remembered).
 */
export async function findProgramSettings(em: EntityManager, programId: number): Promise<ProgramSnapshot> {
  const cache = programCacheOf(em);
  const now = Date.now();
  const hit = cache.get(programId);
  if (hit && hit.until > now) return hit.program;
  const row = await em.findOneOrFail(Program, { id: programId }, { disableIdentityMap: true });
  const program: ProgramSnapshot = Object.freeze({ ...row });
  if (cache.size >= PROGRAM_CACHE_MAX) cache.clear();
  cache.set(programId, { program, until: now + SETTINGS_CACHE_MS });
  return program;
}

/** After a change of the program's settings: the next read goes to the database. */
export function forgetProgramSettings(em: EntityManager, programId: number): void {
  programCacheOf(em).delete(programId);
}
