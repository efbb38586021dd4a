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

/**
 * A map kept per database (tests open several in one process) whose entries expire
 * `SETTINGS_CACHE_MS` after they were set. Bounded: at `max` entries it starts over, so requests
 * naming unknown ids cannot grow it forever.
 */
export function settingsMap<K, V>(max = 10_000) {
  type Entry = { value: V; until: number };
  const maps = new WeakMap<object, Map<K, Entry>>();
  const of = (em: EntityManager): Map<K, Entry> => {
    const driver = em.getDriver();
    let map = maps.get(driver);
    if (!map) {
      map = new Map();
      maps.set(driver, map);
    }
    return map;
  };
  return {
    get(em: EntityManager, key: K): V | undefined {
      const hit = of(em).get(key);
      return hit && hit.until > Date.now() ? hit.value : undefined;
    },
    set(em: EntityManager, key: K, value: V): void {
      const map = of(em);
      if (map.size >= max) map.clear();
      map.set(key, { value, until: Date.now() + SETTINGS_CACHE_MS });
    },
    delete(em: EntityManager, key: K): void {
      of(em).delete(key);
    },
  };
}

const programs = settingsMap<number, ProgramSnapshot>();

/**
 * The program's settings, read at most once per `SETTINGS_CACHE_MS` in this process.
 * @throws the ORM's NotFoundError when there is no such program (never remembered).
 */
export async function findProgramSettings(em: EntityManager, programId: number): Promise<ProgramSnapshot> {
  const hit = programs.get(em, programId);
  if (hit) return hit;
  const row = await em.findOneOrFail(Program, { id: programId }, { disableIdentityMap: true });
  const program: ProgramSnapshot = Object.freeze({ ...row });
  programs.set(em, programId, program);
  return program;
}

/** After a change of the program's settings: the next read goes to the database. */
export function forgetProgramSettings(em: EntityManager, programId: number): void {
  programs.delete(em, programId);
}
