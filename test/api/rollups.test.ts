/**
 * Daily rollups (src/core/reporting/rollups.ts) against the raw rows: whatever sequence of clicks, leads,
 * rebindings, sales, refunds and test traffic lands on whichever days, with sweeps in between or
 * not, the series read through the rollups equals the series read from the raw rows alone, for
 * the program and for each partner. Both modes (PGlite and PostgreSQL: the dirty-marking triggers
 * run in the database).
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { ALL_PARTNERS } from '../../src/core/entities/daily-rollup.ts';
import { getActivitySeries } from '../../src/core/reporting/get-activity-series.ts';
import { pruneClicks } from '../../src/core/reporting/click-retention.ts';
import { rolledThrough, sweepRollups } from '../../src/core/reporting/rollups.ts';
import { typedSql } from '../../src/core/db/sql.ts';
import { bearer, createProgramFixture, useHarness, type Fixture, type Harness } from '../helpers/harness.ts';

const h = useHarness();

type World = { f: Fixture; codes: string[]; partners: number[]; customers: string[]; sales: string[]; first: Date };

async function click(w: World, p: number): Promise<string> {
  const r = await h.request('/api/v1/track/click', {
    body: { affiliate_url: `https://shop.example/?aff=${w.codes[p]}` },
  });
  expect(r.status).toBe(200);
  return r.body.click_id;
}

async function lead(w: World, customerKey: string, p: number): Promise<void> {
  const clickId = await click(w, p);
  const r = await h.request('/api/v1/track/lead', {
    body: { customer_key: customerKey, click_id: clickId },
    headers: bearer(w.f.liveKey),
  });
  expect(r.status).toBe(200);
}

const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const action = fc.oneof(
  weighted(2, fc.record({ kind: fc.constant('click' as const), p: fc.nat(1) })),
  weighted(3, fc.record({ kind: fc.constant('lead' as const), p: fc.nat(1) })),
  weighted(2, fc.record({ kind: fc.constant('rebind' as const), p: fc.nat(1), c: fc.nat() })),
  weighted(
    4,
    fc.record({
      kind: fc.constant('sale' as const),
      c: fc.nat(),
      cents: fc.integer({ min: 100, max: 50_000 }),
      eur: fc.boolean(),
    }),
  ),
  weighted(1, fc.record({ kind: fc.constant('test_sale' as const), cents: fc.integer({ min: 100, max: 50_000 }) })),
  weighted(
    3,
    fc.record({ kind: fc.constant('refund' as const), s: fc.nat(), cents: fc.integer({ min: 1, max: 20_000 }) }),
  ),
  weighted(2, fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 3 }) })),
  weighted(2, fc.record({ kind: fc.constant('sweep' as const) })),
);
type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

async function run(w: World, a: Action, n: number): Promise<void> {
  switch (a.kind) {
    case 'click':
      await click(w, a.p);
      return;
    case 'lead': {
      const key = `c${w.customers.length}-${n}`;
      await lead(w, key, a.p);
      w.customers.push(key);
      return;
    }
    case 'rebind':
      // A keyed lead naming another partner's click moves the customer (a day already rolled, often).
      if (w.customers.length) await lead(w, w.customers[a.c % w.customers.length]!, a.p);
      return;
    case 'sale': {
      if (!w.customers.length) return;
      const tx = `tx-${n}-${w.sales.length}`;
      const r = await h.request('/api/v1/track/sale', {
        body: {
          transaction_id: tx,
          amount_cents: a.cents,
          currency: a.eur ? 'EUR' : 'USD',
          customer_key: w.customers[a.c % w.customers.length],
        },
        headers: bearer(w.f.liveKey),
      });
      expect(r.status).toBe(200);
      w.sales.push(tx);
      return;
    }
    case 'test_sale': {
      const r = await h.request('/api/v1/track/sale', {
        body: { transaction_id: `test-${n}`, amount_cents: a.cents, customer_key: 'test-customer' },
        headers: bearer(w.f.testKey),
      });
      expect(r.status).toBe(200);
      return;
    }
    case 'refund': {
      if (!w.sales.length) return;
      const r = await h.request('/api/v1/track/refund', {
        body: { transaction_id: w.sales[a.s % w.sales.length], refund_amount_cents: a.cents, refund_id: `r-${n}` },
        headers: bearer(w.f.liveKey),
      });
      expect(r.status).toBe(200);
      return;
    }
    case 'advance':
      h.clock.advanceDays(a.days);
      return;
    case 'sweep':
      await sweepRollups(h.ctx.deps());
  }
}

async function expectSeriesEqual(h: Harness, w: World): Promise<void> {
  const range = { programId: w.f.programId, from: w.first, to: h.clock.now };
  for (const partnerId of [undefined, ...w.partners]) {
    const input = { ...range, partnerId };
    const [rolled, raw] = await Promise.all([
      getActivitySeries(h.ctx.deps(), input),
      getActivitySeries(h.ctx.deps(), { ...input, rawOnly: true }),
    ]);
    expect(rolled, `partner ${partnerId ?? 'all'}`).toEqual(raw);
  }
}

test('rollups equal the raw rows after any sequence of events, sweeps and days', async () => {
  let rolledSomething = false;
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 20, maxLength: 40 }), async (actions) => {
      const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
      const second = await h.admin('POST', `/programs/${f.programId}/partners`, {
        code: `q${f.partnerCode}`,
        name: 'Partner Two',
      });
      const w: World = {
        f,
        codes: [f.partnerCode, second.partner.code],
        partners: [f.partnerId, second.partner.id],
        customers: [],
        sales: [],
        first: h.clock.now,
      };
      for (const [n, a] of actions.entries()) {
        await run(w, a, n);
        // Right after each change to a day that may be rolled already, and after each sweep.
        if (a.kind === 'refund' || a.kind === 'rebind' || a.kind === 'sweep') await expectSeriesEqual(h, w);
      }
      await expectSeriesEqual(h, w);
      // And once the sweeper caught up with every change.
      h.clock.advanceDays(1);
      await sweepRollups(h.ctx.deps());
      await expectSeriesEqual(h, w);
      const through = await rolledThrough(typedSql(h.ctx.deps().em));
      if (through && through > w.first.toISOString().slice(0, 10)) rolledSomething = true;
    }),
    { numRuns: 8 },
  );
  expect(rolledSomething).toBe(true);
}, 240_000);

test('a refund of a sale on a rolled day marks the day dirty; reads stay exact before and after the sweep', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  const w: World = {
    f,
    codes: [f.partnerCode],
    partners: [f.partnerId],
    customers: ['dirty-1'],
    sales: [],
    first: h.clock.now,
  };
  await lead(w, 'dirty-1', 0);
  const day = h.clock.now.toISOString().slice(0, 10);
  await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'dirty-tx', amount_cents: 10_000, customer_key: 'dirty-1' },
    headers: bearer(f.liveKey),
  });
  h.clock.advanceDays(2);
  await sweepRollups(h.ctx.deps());
  const db = typedSql(h.ctx.deps().em);
  expect((await rolledThrough(db))! > day).toBe(true);
  const rolled = await db
    .selectFrom('daily_rollup')
    .selectAll()
    .where('program_id', '=', f.programId)
    .where('partner_id', '=', ALL_PARTNERS)
    .execute();
  expect(rolled.map((r) => Number(r.revenue_cents)).reduce((a, b) => a + b, 0)).toBe(10_000);

  const r = await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'dirty-tx', refund_amount_cents: 2_500 },
    headers: bearer(f.liveKey),
  });
  expect(r.body).toMatchObject({ success: true, status: 'refunded' });
  const dirty = await db.selectFrom('rollup_dirty').selectAll().where('program_id', '=', f.programId).execute();
  expect(dirty).toHaveLength(1);
  const before = await getActivitySeries(h.ctx.deps(), { programId: f.programId, from: w.first, to: h.clock.now });
  expect(before.refundedCents.USD?.[0]).toBe(2_500);
  expect(before.commissionCents.USD?.[0]).toBe(750);

  expect((await sweepRollups(h.ctx.deps())).recomputed).toBeGreaterThanOrEqual(1);
  expect(await db.selectFrom('rollup_dirty').selectAll().where('program_id', '=', f.programId).execute()).toEqual([]);
  const after = await getActivitySeries(h.ctx.deps(), { programId: f.programId, from: w.first, to: h.clock.now });
  expect(after).toEqual(before);
  await expectSeriesEqual(h, w);

  // The operator's check (`rollups:check`): consistent, then a rollup row changed behind its back is named.
  expect(await h.admin('GET', `/programs/${f.programId}/stats/check?days=5`)).toEqual({
    consistent: true,
    mismatches: [],
  });
  await db
    .updateTable('daily_rollup')
    .set({ revenue_cents: 1 })
    .where('program_id', '=', f.programId)
    .where('partner_id', '=', ALL_PARTNERS)
    .where('currency', '=', 'USD')
    .execute();
  expect(await h.admin('GET', `/programs/${f.programId}/stats/check?days=5`)).toEqual({
    consistent: false,
    mismatches: [{ day, measure: 'revenueCents.USD', rollup: 1, raw: 10_000 }],
  });
});

test('retention never deletes a click inside its cookie or attribution window, keeps bound clicks, and deleted clicks still count', async () => {
  const f = await createProgramFixture(h, { cookie_duration_days: 45, attribution_window_days: 10 });
  const kept = await createProgramFixture(h, { cookie_duration_days: 45, keep_raw_clicks: true });
  const w: World = { f, codes: [f.partnerCode], partners: [f.partnerId], customers: [], sales: [], first: h.clock.now };
  const k: World = { ...w, f: kept, codes: [kept.partnerCode], partners: [kept.partnerId] };
  const loose = [await click(w, 0), await click(w, 0)];
  const bound = await click(w, 0);
  const r = await h.request('/api/v1/track/lead', {
    body: { customer_key: 'kept-1', click_id: bound },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'ret-tx', amount_cents: 10_000, customer_key: 'kept-1' },
    headers: bearer(f.liveKey),
  });
  const otherProgram = await click(k, 0);
  const db = typedSql(h.ctx.deps().em);
  const present = async () =>
    (
      await db
        .selectFrom('click')
        .select('id')
        .where('id', 'in', [...loose, bound, otherProgram])
        .execute()
    )
      .map((c) => c.id)
      .sort();
  const series = () => getActivitySeries(h.ctx.deps(), { programId: f.programId, from: w.first, to: h.clock.now });
  const clicksOfFirstDay = async () => (await series()).clicks[0];
  expect(await clicksOfFirstDay()).toBe(3);

  // The longest window (45 days) plus the one-day margin has not passed: nothing is deleted.
  h.clock.advanceDays(46);
  await sweepRollups(h.ctx.deps());
  await pruneClicks(h.ctx.deps());
  expect(await present()).toEqual([...loose, bound, otherProgram].sort());

  // A day later the two loose clicks go; the lead's click and the opted-out program's stay.
  h.clock.advanceDays(1);
  await sweepRollups(h.ctx.deps());
  expect(await pruneClicks(h.ctx.deps())).toBeGreaterThanOrEqual(2);
  expect(await present()).toEqual([bound, otherProgram].sort());
  expect(await clicksOfFirstDay()).toBe(3);
  const status = await h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
  expect(status.body.activity).toMatchObject({ clicks: { count: 3 }, leads: { count: 1 }, sales: { count: 1 } });
  await expectSeriesEqual(h, w);

  // A refund recomputes that day from its raw rows: the deleted clicks still count.
  await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'ret-tx', refund_amount_cents: 1_000 },
    headers: bearer(f.liveKey),
  });
  expect((await sweepRollups(h.ctx.deps())).recomputed).toBeGreaterThanOrEqual(1);
  expect(await clicksOfFirstDay()).toBe(3);
  expect((await series()).refundedCents.USD?.[0]).toBe(1_000);
  await expectSeriesEqual(h, w);
});
