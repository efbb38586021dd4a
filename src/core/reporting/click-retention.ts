import { sql } from 'kysely';
import { DAY_MS, type CoreDeps } from '../deps.ts';
import { BASELINE_DAYS } from '../rewards/fraud-rules.ts';
import { dayStartMs, rolledThrough } from './rollups.ts';
import { typedSql } from '../db/sql.ts';

/**
 * Click retention: the `click` table is the fastest-growing one (every partner-link visit). A
 * raw click is deleted once all of these hold, unless its program keeps raw clicks
 * (`keep_raw_clicks`):
 * - its day is rolled (the daily rollups keep counting it: the delete does not mark the day dirty);
 * - it was made, and last clicked, more than the program's longest window (cookie duration or
 *   attribution window) plus `RETENTION_MARGIN_DAYS` ago: no cookie or attribution can still use it;
 *   and never sooner than `MIN_RETENTION_DAYS` (the click-rate fraud rule's look-back: its baseline
 *   days plus its longest window, a week);
 * - it binds no customer (a lead's click is the evidence of its attribution, and is kept).
 * Deleted in batches of `batch` rows, at most `maxBatches` per program per sweep.
 */
export const RETENTION_MARGIN_DAYS = 1;
export const MIN_RETENTION_DAYS = BASELINE_DAYS + 8;

export async function pruneClicks(deps: CoreDeps, batch = 5_000, maxBatches = 20): Promise<number> {
  const db = typedSql(deps.em);
  const through = await rolledThrough(db);
  if (!through) return 0;
  const programs = await db
    .selectFrom('program')
    .select(['id', 'cookie_duration_days', 'attribution_window_days'])
    .where('keep_raw_clicks', '=', false)
    .execute();
  const now = deps.clock().getTime();
  let deleted = 0;
  for (const p of programs) {
    const windowDays = Math.max(
      MIN_RETENTION_DAYS,
      Math.max(p.cookie_duration_days, p.attribution_window_days) + RETENTION_MARGIN_DAYS,
    );
    const before = new Date(Math.min(dayStartMs(through), now - windowDays * DAY_MS));
    for (let i = 0; i < maxBatches; i++) {
      const n = await deps.em.transactional(async (em) => {
        const tx = typedSql(em);
        // The rollups already count these clicks: the dirty-marking trigger skips this delete.
        await sql`set local rollup.pruning = 'on'`.execute(tx);
        // Deleted and counted in one statement: the day's rollup, if ever recomputed, adds them back.
        const rows = await tx
          .with('gone', (w) =>
            w
              .deleteFrom('click')
              .where('id', 'in', (eb) =>
                eb
                  .selectFrom('click as k')
                  .select('k.id')
                  .where('k.program_id', '=', p.id)
                  .where('k.created_at', '<', before)
                  .where('k.clicked_at', '<', before)
                  .where(({ not, exists, selectFrom }) =>
                    not(exists(selectFrom('customer as c').select('c.id').whereRef('c.click_id', '=', 'k.id'))),
                  )
                  .limit(batch),
              )
              .returning(['program_id', 'partner_id', 'created_at']),
          )
          .insertInto('click_pruned')
          .columns(['program_id', 'day', 'partner_id', 'clicks'])
          .expression((eb) =>
            eb
              .selectFrom('gone')
              .select([
                'program_id',
                sql<string>`(created_at at time zone 'UTC')::date`.as('day'),
                'partner_id',
                sql<string>`count(*)`.as('clicks'),
              ])
              .groupBy([sql`2`, 'program_id', 'partner_id']),
          )
          .onConflict((oc) =>
            oc
              .columns(['program_id', 'day', 'partner_id'])
              .doUpdateSet({ clicks: sql<number>`click_pruned.clicks + excluded.clicks` }),
          )
          .returning('clicks')
          .execute();
        return rows.reduce((n, r) => n + Number(r.clicks), 0);
      });
      deleted += n;
      if (n < batch) break;
    }
  }
  return deleted;
}
