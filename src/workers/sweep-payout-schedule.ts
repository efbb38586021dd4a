import { runScheduledPayouts } from '../core/scheduled-payouts.ts';
import { depsWithEvents, type WorkerContext } from './worker-context.ts';

/** Starts the payout runs a program's monthly schedule has due. Returns how many. */
export async function sweepPayoutSchedule(w: WorkerContext): Promise<number> {
  const { deps, flush } = depsWithEvents(w);
  try {
    return (await runScheduledPayouts(deps)).length;
  } finally {
    await flush();
  }
}
