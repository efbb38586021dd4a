/**
 * The admin record lists (`GET /programs/:id/:list`, list-records.ts), 50 rows newest first: the
 * first page, a page 90% deep in history by `?offset=`, and the same page by `?before=<id>`
 * (keyset; clicks are ordered by time and take a click's id).
 */
import { admin, timeCalls, type ReadTarget, type ReadTiming } from '../reads.ts';

const LISTS: Array<[list: string, table: string]> = [
  ['sales', 'sale'],
  ['commissions', 'commission'],
  ['customers', 'customer'],
  ['clicks', 'click'],
  ['refunds', 'refund'],
  ['payouts', 'payout'],
  ['webhook-events', 'webhook_event'],
  ['notifications', 'notification'],
  ['parked-refunds', 'parked_refund'],
];
const LIMIT = 50;

export async function runRecords(t: ReadTarget): Promise<ReadTiming[]> {
  const out: ReadTiming[] = [];
  for (const [list, table] of LISTS) {
    const n = Number(
      (await t.pool.query(`select count(*) as n from ${table} where program_id = $1`, [t.programId])).rows[0].n,
    );
    const offset = Math.floor((n * 0.9) / LIMIT) * LIMIT;
    out.push(await timeCalls(t, `${list} first page`, () => admin(t, `/${list}?limit=${LIMIT}`)));
    out.push(
      await timeCalls(t, `${list} deep, offset`, () => admin(t, `/${list}?limit=${LIMIT}&offset=${offset}`), {
        note: `offset ${offset} of ${n}`,
      }),
    );
    if (offset === 0) continue;
    // The row just before the page at `offset`, in the list's order: `before` it reads the same page.
    const order = table === 'click' ? 'created_at desc, id desc' : 'id desc';
    const { rows } = await t.pool.query(
      `select id from ${table} where program_id = $1 order by ${order} offset $2 limit 1`,
      [t.programId, offset - 1],
    );
    const before = rows[0].id as number | string;
    out.push(await timeCalls(t, `${list} deep, before`, () => admin(t, `/${list}?limit=${LIMIT}&before=${before}`)));
  }
  return out;
}
