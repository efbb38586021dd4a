import { runScheduledPayouts } from '../core/payouts/scheduled-payouts.ts';
import { resumeStripeTransfers } from '../core/payouts/payout-transfers.ts';
import { enqueueEventDeliveries } from '../queue/enqueue-events.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Resumes the Stripe Connect payouts a crash or a refusal left `processing` (payout-transfers.ts),
 * then starts the payout runs a program's monthly schedule has due. Returns how many runs it started.
 */
export async function sweepPayoutSchedule(w: WorkerContext): Promise<number> {
  const deps = w.deps();
  // The deliveries each step returned; a step that throws midway leaves those of the payouts it
  // settled before to the outbox sweeper.
  const resumed = await resumeStripeTransfers(deps);
  await enqueueEventDeliveries(
    w,
    resumed.flatMap((r) => r.deliveryIds),
  );
  const runs = await runScheduledPayouts(deps);
  await enqueueEventDeliveries(
    w,
    runs.flatMap((r) => r.deliveryIds),
  );
  return runs.length;
}
