import { parse } from 'csv-parse/sync';
import { expect, test } from 'vitest';
import { exportRows } from '../../src/core/exports.ts';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createProgramFixture,
  useHarness,
  type Fixture,
} from '../helpers/harness.ts';

const h = useHarness();

async function csv(f: Fixture, path: string): Promise<{ status: number; type: string | null; rows: string[][] }> {
  const r = await h.request(`/api/v1/admin/programs/${f.programId}/exports/${path}`, {
    method: 'GET',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  return { status: r.status, type: r.headers.get('content-type'), rows: r.status === 200 ? parse(text) : [] };
}

async function sale(f: Fixture, id: string, amount: number) {
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: id, amount_cents: amount, customer_key: 'exp' },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  return r.body as { sale_id: number; commission_id: number };
}

test('commissions, sales and payouts as CSV: a header, one row each, exact amounts, only this program', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  const other = await createProgramFixture(h);
  await clickAndLead(h, f, 'exp');
  await clickAndLead(h, other, 'exp');
  const a = await sale(f, 'exp-1', 12_345);
  await sale(f, 'exp-2', 20_000);
  await sale(other, 'other-1', 5_000);
  await h.admin('POST', `/programs/${f.programId}/commissions/${a.commission_id}/approve`);
  await h.admin('POST', `/programs/${f.programId}/commissions/${a.commission_id}/pay`);

  const commissions = await csv(f, 'commissions.csv');
  expect(commissions.status).toBe(200);
  expect(commissions.type).toBe('text/csv; charset=utf-8');
  const [header, ...rows] = commissions.rows;
  expect(header!.slice(0, 9)).toEqual([
    'id',
    'created_at',
    'partner_id',
    'partner_code',
    'partner_name',
    'sale_id',
    'transaction_id',
    'currency',
    'amount_cents',
  ]);
  expect(rows.map((r) => [r[6], r[8], r[11]])).toEqual([
    ['exp-1', '1235', 'paid'],
    ['exp-2', '2000', 'pending'],
  ]);
  const sales = (await csv(f, 'sales')).rows;
  expect(sales.slice(1).map((r) => [r[2], r[6], r[11], r[12]])).toEqual([
    ['exp-1', '12345', 'customer_key', 'false'],
    ['exp-2', '20000', 'customer_key', 'false'],
  ]);
  const payouts = (await csv(f, 'payouts')).rows;
  expect(payouts).toHaveLength(2);
  expect(payouts[1]![7]).toBe('1235');
});

test('cells a spreadsheet would run as formulas are defused', async () => {
  const f = await createProgramFixture(h);
  await clickAndLead(h, f, 'exp');
  await sale(f, '=HYPERLINK("http://evil.example")', 1_000);
  await sale(f, '@SUM(1)', 1_000);
  const rows = (await csv(f, 'sales')).rows.slice(1);
  expect(rows.map((r) => r[2])).toEqual([`'=HYPERLINK("http://evil.example")`, `'@SUM(1)`]);
});

test('a window, an unknown kind, another program and a bad time are refused or filtered', async () => {
  const f = await createProgramFixture(h);
  await clickAndLead(h, f, 'exp');
  await sale(f, 'w-1', 1_000);
  const future = new Date(h.clock.now.getTime() + 60_000).toISOString();
  expect((await csv(f, `sales?from=${encodeURIComponent(future)}`)).rows).toHaveLength(1);
  expect((await csv(f, `sales?to=${encodeURIComponent(future)}`)).rows).toHaveLength(2);
  expect((await csv(f, 'refunds')).status).toBe(404);
  expect((await csv(f, 'sales?from=yesterday')).status).toBe(400);
  expect((await csv({ ...f, programId: 999_999 }, 'sales')).status).toBe(404);
});

test('pages follow the id without a gap or a repeat', async () => {
  const f = await createProgramFixture(h);
  await clickAndLead(h, f, 'exp');
  const ids = [];
  for (let i = 0; i < 7; i++) ids.push((await sale(f, `page-${i}`, 1_000 + i)).sale_id);
  const seen: number[] = [];
  let pages = 0;
  for await (const page of exportRows(h.ctx.deps(), f.programId, 'sales', { from: null, to: null }, 3)) {
    pages++;
    seen.push(...page.map((r) => r.id as number));
  }
  expect(pages).toBe(3);
  expect(seen).toEqual(ids);
});

test('keyset pages (?before=<id>) of a list give the same rows as offset pages, without a gap or a repeat', async () => {
  const f = await createProgramFixture(h);
  await clickAndLead(h, f, 'exp');
  for (let i = 0; i < 7; i++) await sale(f, `keyset-${i}`, 1_000 + i);
  const byOffset = (await h.admin('GET', `/programs/${f.programId}/sales?limit=100`)).sales.map(
    (s: { id: number }) => s.id,
  );
  const byKeyset: number[] = [];
  let before: number | null = null;
  for (;;) {
    const { sales } = await h.admin(
      'GET',
      `/programs/${f.programId}/sales?limit=3${before ? `&before=${before}` : ''}`,
    );
    if (!sales.length) break;
    byKeyset.push(...sales.map((s: { id: number }) => s.id));
    before = sales[sales.length - 1].id;
  }
  expect(byKeyset).toEqual(byOffset);
  expect(byKeyset).toHaveLength(7);
});
