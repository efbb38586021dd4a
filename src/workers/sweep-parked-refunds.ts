import { sweepParkedRefunds } from '../core/refunds/parked-refunds.ts';
import type { WorkerContext } from './worker-context.ts';

/** Applies parked refunds whose sale exists now; lists as unmatched those older than PARKED_REFUND_DAYS. */
export function sweepParked(w: WorkerContext): Promise<number> {
  return sweepParkedRefunds(w.deps(), w.config.PARKED_REFUND_DAYS);
}
