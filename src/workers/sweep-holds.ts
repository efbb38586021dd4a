import { approveDueCommissions } from '../core/rewards/approve-commission.ts';
import { depsWithEvents, type WorkerContext } from './worker-context.ts';

/** Approves commissions whose hold period has passed. Returns how many. */
export async function sweepHolds(w: WorkerContext): Promise<number> {
  const { deps, flush } = depsWithEvents(w);
  try {
    return await approveDueCommissions(deps);
  } finally {
    // Each approval committed on its own: their `commission.updated` events go out even if a later one failed.
    await flush();
  }
}
