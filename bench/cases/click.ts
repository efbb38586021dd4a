/** Clicks from the browser tracker's endpoint: every accepted click stored once. */
import { LEVELS, type BenchContext, type Run, runOf, type CaseRun } from '../config.ts';
import { cannon, ledger, numbered, record, rowOf, sampler } from '../measure.ts';

export async function runClicks(ctx: BenchContext): Promise<void> {
  for (const c of LEVELS) record(ctx, await clickCase(runOf(ctx, c, `click${c}-`), true));
}

export async function clickCase({ svc, db, f, c, seconds, prefix }: CaseRun, measured: boolean): Promise<Run> {
  const l = ledger();
  const bad = sampler();
  const k = await cannon(
    svc,
    c,
    seconds,
    numbered(l, bad, {
      path: '/api/v1/track/click',
      headers: { 'content-type': 'application/json' },
      build: (i) => ({
        body: JSON.stringify({
          affiliate_url: `https://shop.example/pricing?aff=${f.partnerCodes[i % f.partnerCodes.length]}&r=${prefix}${i}`,
          page_url: 'https://shop.example/pricing',
        }),
      }),
    }),
  );
  const row = rowOf('click', c, k);
  if (!measured) return row;
  const { rows } = await db.pool.query<{ affiliate_url: string }>(
    `select affiliate_url from click where program_id = $1 and affiliate_url like $2`,
    [f.programId, `%&r=${prefix}%`],
  );
  const cmp = l.compare(rows.map((r) => Number(r.affiliate_url.split(`&r=${prefix}`)[1])));
  const consistent = cmp.missing === 0 && cmp.unexpected === 0 && cmp.duplicates === 0;
  return {
    ...row,
    consistent,
    extra: {
      check: { ok: consistent, ...cmp },
      sent: l.built,
      statusCodes: k.res.statusCodeStats,
      unexpected: bad.samples,
    },
  };
}
