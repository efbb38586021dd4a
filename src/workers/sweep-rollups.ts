import { pruneClicks } from '../core/reporting/click-retention.ts';
import { sweepRollups } from '../core/reporting/rollups.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Rolls the days that ended, recomputes the rolled days whose rows changed (rollups.ts), then
 * deletes the raw clicks past retention (click-retention.ts): only ever clicks of rolled days.
 */
export async function sweepRollupDays(w: WorkerContext): Promise<void> {
  const done = await sweepRollups(w.deps());
  const prunedClicks = await pruneClicks(w.deps());
  if (done.rolled || done.recomputed || prunedClicks) w.log.info({ ...done, prunedClicks }, 'daily rollups swept');
}
