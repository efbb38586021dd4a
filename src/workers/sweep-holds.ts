import { approveDueCommissions } from '../core/rewards/approve-commission.ts';
import { enqueueEventDeliveries } from '../queue/enqueue-events.ts';
import type { WorkerContext } from './worker-context.ts';

/** Approves commissions whose hold period has passed. Returns how many. */
export async function sweepHolds(w: WorkerContext): Promise<number> {
  // Each approval commits on its own and returns its `commission.updated` deliveries. When a later
  // one fails unexpectedly, those of the earlier ones wait for the outbox sweeper.
  const { approved, deliveryIds } = await approveDueCommissions(w.deps());
  await enqueueEventDeliveries(w, deliveryIds);
  return approved;
}
