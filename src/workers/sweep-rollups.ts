import { sweepRollups } from '../core/rollups.ts';
import type { WorkerContext } from './worker-context.ts';

/** Rolls the days that ended and recomputes the rolled days whose rows changed (rollups.ts). */
export async function sweepRollupDays(w: WorkerContext): Promise<void> {
  const done = await sweepRollups(w.deps());
  if (done.rolled || done.recomputed) w.log.debug(done, 'daily rollups swept');
}
