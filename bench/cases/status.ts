/** The program status (`GET /api/v1/cli/status`, get-program-status.ts) with the program's live key. */
import { get, timeCalls, type ReadTarget, type ReadTiming } from '../reads.ts';

export async function runStatus(t: ReadTarget): Promise<ReadTiming[]> {
  return [
    await timeCalls(t, 'status', () => get(`${t.url}/api/v1/cli/status`, { authorization: `Bearer ${t.liveKey}` })),
  ];
}
