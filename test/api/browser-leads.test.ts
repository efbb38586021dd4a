/**
 * Browser leads that cannot steal customers (docs/tracking-api.md: threat model). The attacker is a partner who
 * sends keyless browser leads for guessable customer keys from its own click before the real
 * customers sign up through another partner's link.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { approveDueCommissions } from '../../src/core/rewards/approve-commission.ts';
import { bearer, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
let honestCode: string;
let honestId: number;
beforeAll(async () => {
  f = await createProgramFixture(h, { domain: 'shop.example', hold_period_days: 30 });
  const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `honest${Date.now().toString(36)}`,
    name: 'Honest',
  });
  honestCode = partner.code;
  honestId = partner.id;
});

const ORIGIN = { origin: 'https://shop.example' };
const click = async (code: string) =>
  (await h.request('/api/v1/track/click', { body: { affiliate_url: `https://shop.example/?aff=${code}` } })).body
    .click_id as string;
const browserLead = (customerKey: string, clickId: string, program = f) =>
  h.request('/api/v1/track/browser-lead', {
    body: { program_id: program.programId, customer_key: customerKey, click_id: clickId },
    headers: ORIGIN,
  });
const sale = (body: Record<string, unknown>) =>
  h.request('/api/v1/track/sale', {
    body: { transaction_id: `tx-${Math.random().toString(36).slice(2)}`, amount_cents: 10_000, ...body },
    headers: bearer(f.liveKey),
  });
const list = async (kind: string) =>
  (await h.admin('GET', `/programs/${f.programId}/${kind}?limit=500`))[kind] as any[];
const commission = async (id: number) => (await list('commissions')).find((c) => c.id === id);

describe('the pre-claim of issue item 1', () => {
  test('a keyed lead for the same customer_key replaces the keyless binding: the honest partner is paid', async () => {
    expect((await browserLead('user_1001', await click(f.partnerCode))).status).toBe(200);
    const honest = await click(honestCode);
    const lead = await h.request('/api/v1/track/lead', {
      body: { customer_key: 'user_1001', click_id: honest },
      headers: bearer(f.liveKey),
    });
    expect(lead.body.click_id).toBe(honest);
    const s = await sale({ customer_key: 'user_1001' });
    expect(s.status).toBe(200);
    expect((await commission(s.body.commission_id)).partner).toBe(honestId);
  });

  test("a sale naming the buyer's own click wins over a provisional binding; the conflict is listed and notified", async () => {
    const attackerClick = await click(f.partnerCode);
    await browserLead('user_2001', attackerClick);
    const honest = await click(honestCode);
    const s = await sale({ customer_key: 'user_2001', click_id: honest });
    const c = await commission(s.body.commission_id);
    expect(c.partner).toBe(honestId);
    expect(c.held_for_review).toBe(false);
    const conflict = (await list('attribution-conflicts')).find((x) => x.customer_key === 'user_2001');
    expect(conflict).toMatchObject({
      kind: 'sale_click_mismatch',
      bound_click_id: attackerClick,
      other_click_id: honest,
      sale_id: s.body.sale_id,
    });
    expect(
      (await list('notifications')).some(
        (n) => n.kind === 'advertiser_attribution_conflict' && n.payload.customer_key === 'user_2001',
      ),
    ).toBe(true);
    // The customer now follows the buyer's click.
    const again = await sale({ customer_key: 'user_2001' });
    expect((await commission(again.body.commission_id)).partner).toBe(honestId);
  });

  test('with browser leads alone the customer is disputed and its commission held until the advertiser decides', async () => {
    expect((await browserLead('user_3001', await click(f.partnerCode))).status).toBe(200);
    const honest = await click(honestCode);
    const second = await browserLead('user_3001', honest);
    expect(second.status).toBe(200);
    const customer = (await list('customers')).find((x) => x.customer_key === 'user_3001');
    expect(customer.provisional).toBe(true);
    expect(customer.disputed_at).toEqual(expect.any(String));
    expect(
      (await list('attribution-conflicts')).some(
        (x) => x.customer_key === 'user_3001' && x.kind === 'lead_click_mismatch',
      ),
    ).toBe(true);

    const s = await sale({ customer_key: 'user_3001' });
    const held = await commission(s.body.commission_id);
    expect(held).toMatchObject({ partner: f.partnerId, held_for_review: true, status: 'pending' });
    // Past the hold period the sweep approves others, never a held one.
    h.clock.advanceDays(31);
    await approveDueCommissions(h.ctx.deps());
    expect((await commission(s.body.commission_id)).status).toBe('pending');

    const decided = await h.admin('POST', `/programs/${f.programId}/customers/${customer.id}/resolve-dispute`, {
      click_id: honest,
    });
    expect(decided).toMatchObject({
      partner_id: honestId,
      reversed_commission_ids: [s.body.commission_id],
      released_commission_ids: [],
    });
    expect((await commission(s.body.commission_id)).status).toBe('reversed');
    const next = await sale({ customer_key: 'user_3001' });
    expect(await commission(next.body.commission_id)).toMatchObject({ partner: honestId, held_for_review: false });

    // ledger:verify derives the whole reversal from the stored decision: with the customer bound
    // back to the first partner, the reversal is a difference.
    const verify = () => h.admin('POST', `/programs/${f.programId}/ledger/verify`, {});
    expect((await verify()).clean).toBe(true);
    const bind = (partner: number) =>
      h.ctx
        .deps()
        .em.getConnection()
        .execute('update customer set partner_id = ? where id = ?', [partner, customer.id]);
    await bind(f.partnerId);
    try {
      expect((await verify()).first_differences).toEqual([
        expect.objectContaining({ table: 'commission', row_id: s.body.commission_id, field: 'reversed_cents' }),
      ]);
    } finally {
      await bind(honestId);
    }
  });
});

test('one click binds at most one customer in browser mode', async () => {
  const c = await click(f.partnerCode);
  expect((await browserLead('user_4001', c)).status).toBe(200);
  const r = await browserLead('user_4002', c);
  expect(r.status).toBe(400);
  expect(r.body.error.details.field).toBe('click_id');
  expect((await list('customers')).some((x) => x.customer_key === 'user_4002')).toBe(false);
  // The same lead again is harmless.
  expect((await browserLead('user_4001', c)).status).toBe(200);
});

test('a program setting turns keyless leads off', async () => {
  const closed = await createProgramFixture(h, { domain: 'closed.example', browser_leads: false });
  const c = (
    await h.request('/api/v1/track/click', {
      body: { affiliate_url: `https://closed.example/?aff=${closed.partnerCode}` },
    })
  ).body.click_id;
  const r = await h.request('/api/v1/track/browser-lead', {
    body: { program_id: closed.programId, customer_key: 'u', click_id: c },
    headers: { origin: 'https://closed.example' },
  });
  expect(r.status).toBe(403);
  expect(r.body.error.code).toBe('forbidden');
  expect((await h.admin('GET', `/programs/${closed.programId}`)).program.browser_leads).toBe(false);
  const keyed = await h.request('/api/v1/track/lead', {
    body: { customer_key: 'u', click_id: c },
    headers: bearer(closed.liveKey),
  });
  expect(keyed.status).toBe(200);
});
