import { runScheduledPayouts } from '../core/payouts/scheduled-payouts.ts';
import { resumeStripeTransfers } from '../core/payouts/payout-transfers.ts';
import { depsWithEvents, type WorkerContext } from './worker-context.ts';

/**
 * Resumes the Stripe Connect payouts a crash or a refusal left `processing` (payout-transfers.ts),
 * then starts the payout runs a program's monthly schedule has due. Returns how many runs it started.
 */
export async function sweepPayoutSchedule(w: WorkerContext): Promise<number> {
  const { deps, flush } = depsWithEvents(w);
  try {
    await resumeStripeTransfers(deps);
    return (await runScheduledPayouts(deps)).length;
  } finally {
    await flush();
  }
}
