import { approveDueCommissions } from '../core/approve-commission.ts';
import type { WorkerContext } from './worker-context.ts';

/** Approves commissions whose hold period has passed. Returns how many. */
export function sweepHolds(w: WorkerContext): Promise<number> {
  return approveDueCommissions(w.deps());
}
