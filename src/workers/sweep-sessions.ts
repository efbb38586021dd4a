import { deleteStaleSessions } from '../core/programs/sessions.ts';
import type { WorkerContext } from './worker-context.ts';

/** Drops sessions that expired or ended more than a day ago. Returns how many. */
export function sweepSessions(w: WorkerContext): Promise<number> {
  return deleteStaleSessions(w.deps());
}
