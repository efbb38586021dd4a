/** The dashboard overview (`GET /programs/:id/stats`, get-activity-series.ts) over 30 and 365 days. */
import { admin, timeCalls, type ReadTarget, type ReadTiming } from '../reads.ts';

export async function runOverview(t: ReadTarget): Promise<ReadTiming[]> {
  return [
    await timeCalls(t, 'overview 30 days', () => admin(t, '/stats?days=30')),
    await timeCalls(t, 'overview 365 days', () => admin(t, '/stats?days=365')),
  ];
}
