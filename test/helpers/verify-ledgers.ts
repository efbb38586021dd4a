import type { TempDatabase } from './temp-database.ts';

/** ledger:verify over HTTP for every program in `db`: an error naming the first differences, or null. */
export async function verifyLedgers(url: string, adminToken: string, db: TempDatabase): Promise<Error | null> {
  const { rows } = await db.pool.query<{ id: number }>('select id from program order by id');
  const unclean: string[] = [];
  for (const { id } of rows) {
    const res = await fetch(`${url}/api/v1/admin/programs/${id}/ledger/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await res.json()) as { clean?: boolean; first_differences?: unknown[] };
    if (res.status !== 200 || body.clean !== true)
      unclean.push(`program ${id}: ${res.status} ${JSON.stringify(body.first_differences?.slice(0, 3) ?? body)}`);
  }
  return unclean.length ? new Error(`ledger:verify found differences:\n${unclean.join('\n')}`) : null;
}
