import { describe, expect, test } from 'vitest';
import { bearer, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

/**
 * The program's attribution model against the contract's own attribution rules: the click
 * overwrite, the keyed lead's rebinding, the attribution window and program isolation. Default
 * `last_click` is the contract's behaviour; `first_click` keeps the first partner for the cookie
 * duration.
 */
const h = useHarness();

const click = (code: string, existing?: string) =>
  h.request('/api/v1/track/click', {
    body: { affiliate_url: `https://shop.example/?aff=${code}`, ...(existing ? { existing_click_id: existing } : {}) },
  });
const lead = (f: Fixture, customerKey: string, clickId: string) =>
  h.request('/api/v1/track/lead', {
    body: { customer_key: customerKey, click_id: clickId },
    headers: bearer(f.liveKey),
  });
const sale = (f: Fixture, transactionId: string, customerKey: string) =>
  h.request('/api/v1/track/sale', {
    body: { transaction_id: transactionId, amount_cents: 5_000, customer_key: customerKey },
    headers: bearer(f.liveKey),
  });

async function secondPartner(f: Fixture): Promise<{ id: number; code: string }> {
  const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `${f.partnerCode}-late`,
    name: 'Later partner',
  });
  return partner;
}

async function salePartner(f: Fixture, saleId: number): Promise<number> {
  const { sales } = await h.admin('GET', `/programs/${f.programId}/sales?limit=100`);
  return sales.find((s: { id: number }) => s.id === saleId).partner;
}

/** Runs `fn` with the clock moved `days` ahead, then puts it back. */
async function later<T>(days: number, fn: () => Promise<T>): Promise<T> {
  const start = h.clock.now;
  h.clock.advanceDays(days);
  try {
    return await fn();
  } finally {
    h.clock.now = start;
  }
}

describe.each([
  ['last_click', { expectKept: false }],
  ['first_click', { expectKept: true }],
] as const)('attribution model %s', (model, { expectKept }) => {
  const config = { attribution_model: model, cookie_duration_days: 30, attribution_window_days: 30 };

  test('a later partner link on the same visitor’s click: taken over (last) or kept (first)', async () => {
    const f = await createProgramFixture(h, config);
    const late = await secondPartner(f);
    const first = await click(f.partnerCode);
    const second = await click(late.code, first.body.click_id);
    expect(second.status).toBe(200);
    expect(second.body.click_id).toBe(first.body.click_id);
    expect(second.body.partner_code).toBe(expectKept ? f.partnerCode : late.code);
    expect((await lead(f, 'visitor-1', first.body.click_id)).status).toBe(200);
    const s = await sale(f, `${model}-overwrite`, 'visitor-1');
    expect(await salePartner(f, s.body.sale_id)).toBe(expectKept ? f.partnerId : late.id);
  });

  test('a keyed lead naming another partner’s click: rebinds (last) or keeps the first (first)', async () => {
    const f = await createProgramFixture(h, config);
    const late = await secondPartner(f);
    const a = await click(f.partnerCode);
    await lead(f, 'buyer', a.body.click_id);
    const b = await click(late.code);
    const rebound = await lead(f, 'buyer', b.body.click_id);
    expect(rebound.status).toBe(200);
    expect(rebound.body.click_id).toBe(expectKept ? a.body.click_id : b.body.click_id);
    const s = await sale(f, `${model}-lead`, 'buyer');
    expect(await salePartner(f, s.body.sale_id)).toBe(expectKept ? f.partnerId : late.id);
  });

  test('once the first click is older than the cookie duration, a later partner takes over in both models', async () => {
    const f = await createProgramFixture(h, config);
    const late = await secondPartner(f);
    const a = await click(f.partnerCode);
    await lead(f, 'returning', a.body.click_id);
    await later(31, async () => {
      const overwrite = await click(late.code, a.body.click_id);
      expect(overwrite.body.partner_code).toBe(late.code);
      await lead(f, 'returning', overwrite.body.click_id);
      const s = await sale(f, `${model}-expired`, 'returning');
      expect(await salePartner(f, s.body.sale_id)).toBe(late.id);
    });
  });

  test('the attribution window still applies: a sale past it records nothing', async () => {
    const f = await createProgramFixture(h, config);
    const a = await click(f.partnerCode);
    await lead(f, 'too-late', a.body.click_id);
    const r = await later(31, () => sale(f, `${model}-window`, 'too-late'));
    expect(r.body).toMatchObject({ attributed: false, reason: 'attribution_window_expired', sale_id: null });
  });

  test('a click id of another program is never kept nor taken over: the link records its own click', async () => {
    const f = await createProgramFixture(h, config);
    const g = await createProgramFixture(h, config);
    const foreign = await click(g.partnerCode);
    const own = await click(f.partnerCode, foreign.body.click_id);
    expect(own.body.click_id).not.toBe(foreign.body.click_id);
    expect(own.body.partner_code).toBe(f.partnerCode);
  });
});
