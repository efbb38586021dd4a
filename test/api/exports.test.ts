import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { expect, test } from 'vitest';
import { exportRows } from '../../src/core/reporting/exports.ts';
import { statementGenesis, statementLineHash } from '../../src/core/ledger/statement-hash.ts';
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
  expect((await csv(f, 'returns')).status).toBe(404);
  expect((await csv(f, 'statement')).status).toBe(400);
  expect((await csv(f, 'statement?partner_id=999999')).status).toBe(404);
  expect((await csv(f, 'sales?from=yesterday')).status).toBe(400);
  expect((await csv({ ...f, programId: 999_999 }, 'sales')).status).toBe(404);
});

test('a window starts its keyset at its lowest id, whatever the order of ids and times', async () => {
  const f = await createProgramFixture(h);
  await clickAndLead(h, f, 'exp');
  // Ids in one order, times in another: the second sale is the oldest, the first is in the window.
  h.clock.advanceDays(2);
  const a = await sale(f, 'order-a', 1_000);
  h.clock.advanceDays(-2);
  await sale(f, 'order-b', 2_000);
  h.clock.advanceDays(1);
  const c = await sale(f, 'order-c', 3_000);
  h.clock.advanceDays(1);
  const from = new Date(h.clock.now.getTime() - 1.5 * 86_400_000);
  const seen = async (kind: 'sales' | 'commissions', at: Date) => {
    const out: number[] = [];
    for await (const page of exportRows(h.ctx.deps(), f.programId, kind, { from: at, to: null }, 1))
      out.push(...page.map((r) => r.id as number));
    return out;
  };
  expect(await seen('sales', from)).toEqual([a.sale_id, c.sale_id]);
  expect(await seen('commissions', from)).toEqual([a.commission_id, c.commission_id]);
  // A window after every row: no page at all.
  expect(await seen('sales', new Date(h.clock.now.getTime() + 3 * 86_400_000))).toEqual([]);
  const rows = (await csv(f, `commissions?from=${encodeURIComponent(from.toISOString())}`)).rows;
  expect(rows.slice(1).map((r) => Number(r[0]))).toEqual([a.commission_id, c.commission_id]);
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

const col = (rows: string[][], name: string) => {
  const i = rows[0]!.indexOf(name);
  expect(i, name).toBeGreaterThanOrEqual(0);
  return rows.slice(1).map((r) => r[i]);
};

test('refunds as CSV, and every amount also as a decimal in its currency’s precision (VND has none)', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'exp');
  await sale(f, 'dec-1', 12_345);
  const vnd = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'dec-2', amount_cents: 250_000, currency: 'VND', customer_key: 'exp' },
    headers: bearer(f.liveKey),
  });
  expect(vnd.status).toBe(200);
  const refund = await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'dec-1', refund_amount_cents: 5, refund_id: 're_1', refund_reason: 'damaged' },
    headers: bearer(f.liveKey),
  });
  expect(refund.status).toBe(200);
  const sales = (await csv(f, 'sales')).rows;
  expect(col(sales, 'amount')).toEqual(['123.45', '250000']);
  const commissions = (await csv(f, 'commissions')).rows;
  expect(col(commissions, 'amount')).toEqual(['12.35', '25000']);
  // The 5-cent refund took 1 cent of the commission (in proportion, rounded half-up).
  expect(col(commissions, 'net')).toEqual(['12.34', '25000']);
  const refunds = (await csv(f, 'refunds.csv')).rows;
  expect(refunds).toHaveLength(2);
  expect([col(refunds, 'transaction_id'), col(refunds, 'refund_id'), col(refunds, 'applied_cents')]).toEqual([
    ['dec-1'],
    ['re_1'],
    ['5'],
  ]);
  expect([col(refunds, 'applied'), col(refunds, 'reason'), col(refunds, 'partner_id')]).toEqual([
    ['0.05'],
    ['damaged'],
    [String(f.partnerId)],
  ]);
});

/** SHA-256 of UTF-8 text as lower-case hex, and a statement line's hash after `previous` (docs/exports.md: Auditable statement). */
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const CHAINED = ['id', 'created_at', 'currency', 'kind', 'delta_cents', 'commission_id', 'refund_id', 'payout_id'];
const chainNext = (previous: string, line: Record<string, string>) =>
  sha256Hex([previous, ...CHAINED.map((n) => line[n] ?? '')].join('|'));

test('the statement hash chain, pinned: program 7, partner 3, a credit then a refund deduction', () => {
  // Worked outside the service: printf '%s' 'statement|7|3' | sha256sum, then each line the same way.
  const genesis = '04a36c31e37077ca46fd60764da65d7e23fb6457fd7de76dc7a9bbd87e9eb610';
  const first = '501989f0769d7caf63f4e0b076eb1c7f00da63a242fe1c3b14a7a8707983ea81';
  const second = 'c756dee036bb5acd88fcb808ffd338c13f0f3f021dd71af983164cea87faab2f';
  const credit = { id: 11, created_at: '2025-01-02T03:04:05.000Z', currency: 'USD', kind: 'commission_credit' };
  const deduction = { id: 12, created_at: '2025-01-02T04:00:00.000Z', currency: 'USD', kind: 'refund_deduction' };
  const a = { ...credit, delta_cents: '1000', commission_id: 5, refund_id: null, payout_id: null };
  const b = { ...deduction, delta_cents: '-250', commission_id: 5, refund_id: 9, payout_id: null };
  expect(statementGenesis(7, 3)).toBe(genesis);
  expect(statementLineHash(genesis, a)).toBe(first);
  expect(statementLineHash(first, b)).toBe(second);
  // The test's own recomputation agrees, from the cells as the CSV has them (absent ids empty).
  expect(chainNext(genesis, { ...credit, id: '11', delta_cents: '1000', commission_id: '5' })).toBe(first);
  expect(chainNext(first, { ...deduction, id: '12', delta_cents: '-250', commission_id: '5', refund_id: '9' })).toBe(
    second,
  );
});

test('a partner’s statement: each line names its cause, carries the running balance and a hash chain anyone can recompute from its cells', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'exp');
  const a = await sale(f, 'st-1', 10_000);
  await h.admin('POST', `/programs/${f.programId}/commissions/${a.commission_id}/approve`);
  await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'st-1', refund_amount_cents: 2_500, refund_id: 're_st' },
    headers: bearer(f.liveKey),
  });
  const start = h.clock.now;
  h.clock.now = new Date(start.getTime() + 3_600_000);
  const paid = await h.admin('POST', `/programs/${f.programId}/commissions/${a.commission_id}/pay`).finally(() => {
    h.clock.now = start;
  });
  const rows = (await csv(f, `statement?partner_id=${f.partnerId}`)).rows;
  expect(col(rows, 'kind')).toEqual(['commission_credit', 'refund_deduction', 'payout']);
  expect(col(rows, 'delta_cents')).toEqual(['1000', '-250', '-750']);
  expect(col(rows, 'balance_cents')).toEqual(['1000', '750', '0']);
  expect(col(rows, 'balance')).toEqual(['10.00', '7.50', '0.00']);
  expect(col(rows, 'sale_id')).toEqual([String(a.sale_id), String(a.sale_id), '']);
  expect(col(rows, 'transaction_id')).toEqual(['st-1', 'st-1', '']);
  expect(col(rows, 'refund_id')[1]).toMatch(/^\d+$/);
  expect(col(rows, 'payout_id')).toEqual(['', '', String(paid.payout.id)]);
  // The chain recomputed here from the lines' own cells, as docs/exports.md (Auditable statement) documents it.
  const header = rows[0]!;
  const cells = (r: string[]) => Object.fromEntries(header.map((n, i) => [n, r[i]!]));
  let prev = sha256Hex(`statement|${f.programId}|${f.partnerId}`);
  expect(rows.slice(1).map((r) => (prev = chainNext(prev, cells(r))))).toEqual(col(rows, 'hash'));
  // A window shows fewer lines with the same hashes.
  const later = (await csv(f, `statement?partner_id=${f.partnerId}&from=${encodeURIComponent(rows[3]![1]!)}`)).rows;
  expect(col(later, 'hash')).toEqual([col(rows, 'hash')[2]]);
});

test('a partner exports only their own rows from the portal; another partner’s never appear', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  const { partner: other } = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `${f.partnerCode}-b`,
    name: 'Other',
  });
  await clickAndLead(h, f, 'mine');
  await clickAndLead(h, f, 'theirs', other.code);
  const mine = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'own-1', amount_cents: 10_000, customer_key: 'mine' },
    headers: bearer(f.liveKey),
  });
  await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'their-1', amount_cents: 20_000, customer_key: 'theirs' },
    headers: bearer(f.liveKey),
  });
  const invite = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
  const token = new URL(invite.invite_url).pathname.split('/').pop();
  const accepted = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'correct horse battery' } });
  const cookie = (accepted.headers.get('set-cookie') ?? '').split(';')[0]!;
  const portal = async (path: string) => {
    const r = await h.request(`/api/v1/partner/exports/${path}`, { method: 'GET', headers: { cookie } });
    return { status: r.status, rows: r.status === 200 ? (parse(String(r.body)) as string[][]) : [] };
  };
  const commissions = await portal('commissions.csv');
  expect(commissions.status).toBe(200);
  expect(col(commissions.rows, 'transaction_id')).toEqual(['own-1']);
  expect(col(commissions.rows, 'id')).toEqual([String(mine.body.commission_id)]);
  expect((await portal('statement')).status).toBe(200);
  expect((await portal('sales')).status).toBe(404);
  expect((await h.request('/api/v1/partner/exports/commissions', { method: 'GET' })).status).toBe(401);
  // The admin export of one partner matches.
  expect(col((await csv(f, `commissions?partner_id=${other.id}`)).rows, 'transaction_id')).toEqual(['their-1']);
});
