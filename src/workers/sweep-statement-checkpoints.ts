import { signScheduledCheckpoints } from '../core/ledger/sign-scheduled-checkpoints.ts';
import type { WorkerContext } from './worker-context.ts';

/** Signs, once per STATEMENT_CHECKPOINT_INTERVAL_MS, the statement heads that moved. Returns how many. */
export function sweepStatementCheckpoints(w: WorkerContext): Promise<number> {
  return signScheduledCheckpoints(w.deps(), w.config.STATEMENT_CHECKPOINT_INTERVAL_MS);
}
