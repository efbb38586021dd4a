/** A partner's statement (`GET /programs/:id/partners/:pid/statement`, get-partner-statement.ts), the partner with the most rows. */
import { admin, timeCalls, type ReadTarget, type ReadTiming } from '../reads.ts';

export async function runStatement(t: ReadTarget): Promise<ReadTiming[]> {
  return [await timeCalls(t, 'partner statement', () => admin(t, `/partners/${t.partnerId}/statement`))];
}
