/**
 * CSV exports (`GET /programs/:id/exports/commissions.csv`): the last 30 days (time to the first
 * bytes and to the end), and the whole year once.
 */
import { admin, timeCalls, type ReadTarget, type ReadTiming } from '../reads.ts';

export async function runCsv(t: ReadTarget): Promise<ReadTiming[]> {
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
  return [
    await timeCalls(t, 'export commissions 30 days', () => admin(t, `/exports/commissions.csv?from=${from}`), {
      calls: 5,
      warmup: 1,
    }),
    await timeCalls(t, 'export commissions, all', () => admin(t, '/exports/commissions.csv'), {
      calls: 1,
      warmup: 0,
    }),
  ];
}
