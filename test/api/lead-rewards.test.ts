import { describe, expect, test } from 'vitest';
import { approveDueCommissions } from '../../src/core/rewards/approve-commission.ts';
import { parse } from 'csv-parse/sync';
import { ADMIN_TOKEN, bearer, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

/**
 * Rewards per lead through the API, in both modes: once per customer, only for bindings the
 * merchant confirmed, under the partner's group rules, credited after the hold period like any
 * commission, reversed (partly or whole) through the ledger, held by fraud rules, exported.
 */
const h = useHarness();
let seq = 0;

const LEAD = { lead: { currency: 'USD', cents: 500 } };

async function program(config: Record<string, unknown> = {}): Promise<Fixture> {
  const f = await createProgramFixture(h, { domain: 'shop.example', hold_period_days: 30, ...config });
  await h.admin('PATCH', `/programs/${f.programId}`, { reward_rules: LEAD });
  return f;
}
const click = async (code: string) =>
  (await h.request('/api/v1/track/click', { body: { affiliate_url: `https://shop.example/?aff=${code}` } })).body
    .click_id as string;
async function lead(f: Fixture, body: Record<string, unknown>) {
  const r = await h.request('/api/v1/track/lead', { body, headers: bearer(f.liveKey) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { customer_id: number; commission_id: number | null };
}
const commissions = async (f: Fixture) =>
  (await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`)).commissions as Array<Record<string, any>>;
const balance = async (f: Fixture, partnerId = f.partnerId) =>
  (await h.admin('GET', `/programs/${f.programId}/partners/${partnerId}/account`)).balances.find(
    (b: { currency: string }) => b.currency === 'USD',
  )?.balance_cents ?? 0;
const reverse = (f: Fixture, id: number, body: Record<string, unknown> = {}) =>
  h.request(`/api/v1/admin/programs/${f.programId}/commissions/${id}/reverse`, {
    body,
    headers: bearer(ADMIN_TOKEN),
  });
async function credit() {
  const start = h.clock.now;
  h.clock.now = new Date(start.getTime() + 31 * 86_400_000);
  try {
    await approveDueCommissions(h.ctx.deps());
  } finally {
    h.clock.now = start;
  }
}

describe('reward per lead', () => {
  test('a keyed lead earns it once per customer: a second lead or a rebinding to another partner earns nothing more', async () => {
    const f = await program();
    const key = `lead-${++seq}`;
    const first = await lead(f, { customer_key: key, click_id: await click(f.partnerCode) });
    expect(first.commission_id).toEqual(expect.any(Number));
    const [c] = await commissions(f);
    expect(c).toMatchObject({
      id: first.commission_id,
      sale: null,
      lead_customer: first.customer_id,
      partner: f.partnerId,
      amount_cents: 500,
      currency: 'USD',
      status: 'pending',
      rate_bps: 0,
      reward: { rule: 'lead', type: 'flat', flat_cents: 500, source: 'program' },
    });
    expect((await lead(f, { customer_key: key, click_id: await click(f.partnerCode) })).commission_id).toBeNull();
    const { partner: other } = await h.admin('POST', `/programs/${f.programId}/partners`, {
      code: `${f.partnerCode}-o`,
      name: 'Other',
    });
    expect((await lead(f, { customer_key: key, click_id: await click(other.code) })).commission_id).toBeNull();
    expect(await commissions(f)).toHaveLength(1);
    // A lead with no click binds no partner and earns nothing; a later sale still earns its own commission.
    expect((await lead(f, { customer_key: `nobody-${seq}` })).commission_id).toBeNull();
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `lr-${seq}`, amount_cents: 10_000, customer_key: key },
      headers: bearer(f.liveKey),
    });
    expect(sale.body.commission_id).toEqual(expect.any(Number));
    expect((await commissions(f)).map((x) => x.sale === null)).toEqual([false, true]);
  });

  test('a keyless browser lead earns nothing until the merchant’s keyed lead confirms the binding', async () => {
    const f = await program({ browser_leads: true });
    const key = `browser-${++seq}`;
    const clickId = await click(f.partnerCode);
    const r = await h.request('/api/v1/track/browser-lead', {
      body: { program_id: f.programId, customer_key: key, click_id: clickId },
      headers: { origin: 'https://shop.example' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.commission_id).toBeNull();
    expect(await commissions(f)).toHaveLength(0);
    expect((await lead(f, { customer_key: key, click_id: clickId })).commission_id).toEqual(expect.any(Number));
  });

  test('a group’s rules decide: a group without a lead reward earns none, one with its own earns that', async () => {
    const f = await program();
    const none = await h.admin('POST', `/programs/${f.programId}/partner-groups`, {
      name: 'Sales only',
      reward_rules: { sale: { type: 'percent', bps: 500 } },
    });
    await h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, { group_id: none.group.id });
    expect(
      (await lead(f, { customer_key: `g-${++seq}`, click_id: await click(f.partnerCode) })).commission_id,
    ).toBeNull();
    const rich = await h.admin('POST', `/programs/${f.programId}/partner-groups`, {
      name: 'Signups',
      reward_rules: { lead: { currency: 'EUR', cents: 1_200 } },
    });
    await h.admin('PUT', `/programs/${f.programId}/partners/${f.partnerId}/group`, { group_id: rich.group.id });
    const earned = await lead(f, { customer_key: `g-${++seq}`, click_id: await click(f.partnerCode) });
    expect((await commissions(f)).find((c) => c.id === earned.commission_id)).toMatchObject({
      amount_cents: 1_200,
      currency: 'EUR',
      reward: { rule: 'lead', source: 'group', group_id: rich.group.id },
    });
  });

  test('credited after the hold period; reversed in part then whole through the balance; a third reversal is skipped', async () => {
    const f = await program();
    const { commission_id: id } = await lead(f, { customer_key: `rev-${++seq}`, click_id: await click(f.partnerCode) });
    await credit();
    expect(await balance(f)).toBe(500);
    const part = await reverse(f, id!, { amount_cents: 200, reason: 'trial never started' });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({ status: 'refunded', deduction_cents: 200, balance_deduction_cents: 200 });
    expect(part.body.commission).toMatchObject({ reversed_cents: 200, reason: 'trial never started' });
    expect(await balance(f)).toBe(300);
    const rest = await reverse(f, id!);
    expect(rest.body).toMatchObject({ status: 'reversed', deduction_cents: 300, balance_deduction_cents: 300 });
    expect(await balance(f)).toBe(0);
    expect((await reverse(f, id!)).body).toMatchObject({ status: 'skipped', reason: 'Commission already reversed' });
    expect(await balance(f)).toBe(0);
    const { notifications } = await h.admin('GET', `/programs/${f.programId}/notifications?limit=50`);
    expect(
      notifications
        .filter((n: { commission_id: number }) => n.commission_id === id)
        .map((n: { kind: string; payload: { deduction_cents: number } }) => [n.kind, n.payload.deduction_cents]),
    ).toEqual([
      ['partner_commission_refunded', 300],
      ['partner_commission_refunded', 200],
    ]);
    // The statement reconciles: the credit and the two deductions.
    const account = await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`);
    expect(account.balances).toEqual([expect.objectContaining({ currency: 'USD', balance_cents: 0 })]);
  });

  test('a pending lead reward reversed moves no balance; a sale’s commission, another program’s or an unknown one is refused', async () => {
    const f = await program();
    const { commission_id: id } = await lead(f, { customer_key: `p-${++seq}`, click_id: await click(f.partnerCode) });
    expect((await reverse(f, id!)).body).toMatchObject({ status: 'reversed', balance_deduction_cents: 0 });
    await credit();
    expect(await balance(f)).toBe(0);
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `p-sale-${seq}`, amount_cents: 10_000, customer_key: `p-${seq}` },
      headers: bearer(f.liveKey),
    });
    const onSale = await reverse(f, sale.body.commission_id);
    expect(onSale.status).toBe(400);
    expect(onSale.body.error).toMatchObject({ code: 'invalid_request', details: { sale_id: sale.body.sale_id } });
    const g = await program();
    expect((await reverse(g, id!)).status).toBe(404);
    expect((await reverse(f, 999_999_999)).status).toBe(404);
    expect((await reverse(f, id!, { amount_cents: -1 })).status).toBe(400);
  });

  test('fraud rules hold a lead reward (disposable email); releasing credits it exactly once', async () => {
    const f = await program({ fraud_rules: { disposable_email: true } });
    const { commission_id: id } = await lead(f, {
      customer_key: `fraud-${++seq}`,
      click_id: await click(f.partnerCode),
      email: 'someone@mailinator.com',
    });
    const held = (await commissions(f)).find((c) => c.id === id)!;
    expect(held).toMatchObject({ held_for_review: true, hold: { rules: [{ rule: 'disposable_email' }] } });
    await credit();
    expect(await balance(f)).toBe(0);
    expect(
      (
        await h.request(`/api/v1/admin/programs/${f.programId}/commissions/${id}/release`, {
          body: {},
          headers: bearer(ADMIN_TOKEN),
        })
      ).status,
    ).toBe(200);
    expect(await balance(f)).toBe(500);
    expect(
      (
        await h.request(`/api/v1/admin/programs/${f.programId}/commissions/${id}/release`, {
          body: {},
          headers: bearer(ADMIN_TOKEN),
        })
      ).status,
    ).toBe(400);
    expect(await balance(f)).toBe(500);
  });

  test('the commissions export and the partner portal name lead rewards', async () => {
    const f = await program();
    const r = await lead(f, { customer_key: `x-${++seq}`, click_id: await click(f.partnerCode) });
    const csv = await h.request(`/api/v1/admin/programs/${f.programId}/exports/commissions.csv`, {
      method: 'GET',
      headers: bearer(ADMIN_TOKEN),
    });
    const [header, row] = parse(String(csv.body)) as string[][];
    const at = (name: string) => row![header!.indexOf(name)];
    expect([at('kind'), at('sale_id'), at('lead_customer_id'), at('amount_cents')]).toEqual([
      'lead',
      '',
      String(r.customer_id),
      '500',
    ]);
  });
});
