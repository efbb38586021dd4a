import type { CoreDeps } from '../deps.ts';

/** True when the database answers a trivial query (readiness); never throws. */
// Raw: `select 1` names no table, so there is nothing for the typed schema to check.
export function pingDatabase(deps: Pick<CoreDeps, 'em'>): Promise<boolean> {
  return deps.em.execute('select 1').then(
    () => true,
    () => false,
  );
}
