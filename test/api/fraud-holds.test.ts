import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

/**
 * Fraud holds end to end, both modes: each rule holds a commission (the sale still answers as
 * attributed), releasing credits the balance exactly once, rejecting leaves it untouched.
 */
const h = useHarness();
let seq = 0;

const fraudRules = {
  self_referral: true,
  disposable_email: true,
  fast_conversion_seconds: 30,
  click_spike: { factor: 3, window_hours: 24, min_clicks: 5 },
};

/** `n` clicks on the partner's link, `daysAgo` before the clock. */
async function clicks(f: Fixture, n: number, daysAgo = 0) {
  const start = h.clock.now;
  h.clock.now = new Date(start.getTime() - daysAgo * 86_400_000);
  try {
    for (let i = 0; i < n; i++)
      await h.request('/api/v1/track/click', { body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` } });
  } finally {
    h.clock.now = start;
  }
}

async function program(
  email: string | null = 'jane.partner@example.com',
  rules: Record<string, unknown> = fraudRules,
): Promise<Fixture> {
  const f = await createProgramFixture(h, { fraud_rules: rules });
  // The fixture's partner has no email: give the program a partner who has one.
  const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `${f.partnerCode}-f`,
    name: 'Jane',
    email,
  });
  return { ...f, partnerId: partner.id, partnerCode: partner.code };
}

/** A click, a lead with `email`, and (after `minutes`) a sale of 100.00; returns the sale's answer. */
async function journey(f: Fixture, email: string, minutes = 10, afterLead?: (customerKey: string) => Promise<void>) {
  const key = `cust-${++seq}`;
  const click = await h.request('/api/v1/track/click', {
    body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
  });
  await h.request('/api/v1/track/lead', {
    body: { customer_key: key, click_id: click.body.click_id, email },
    headers: bearer(f.liveKey),
  });
  await afterLead?.(key);
  const start = h.clock.now;
  h.clock.now = new Date(start.getTime() + minutes * 60_000);
  try {
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `fraud-${seq}`, amount_cents: 10_000, customer_key: key },
      headers: bearer(f.liveKey),
    });
    expect(sale.status).toBe(200);
    return sale.body as { success: true; sale_id: number; commission_id: number; message: string };
  } finally {
    h.clock.now = start;
  }
}

const commission = async (f: Fixture, id: number) =>
  (await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`)).commissions.find(
    (c: { id: number }) => c.id === id,
  );
const balance = async (f: Fixture) =>
  (await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/account`)).balances.find(
    (b: { currency: string }) => b.currency === 'USD',
  )?.balance_cents ?? 0;

describe.each([
  ['self_referral', (f: Fixture) => journey(f, ' Jane.Partner@Example.com '), { match: 'email' }],
  ['disposable_email', (f: Fixture) => journey(f, 'buyer@mailinator.com'), {}],
  ['fast_conversion', (f: Fixture) => journey(f, 'buyer@example.org', 0.1), { limit_seconds: 30 }],
  [
    'click_spike',
    async (f: Fixture) => {
      await clicks(f, 5);
      return journey(f, 'buyer@example.org');
    },
    { recent_clicks: 6, baseline_clicks_per_window: 0, factor: 3 },
  ],
] as const)('%s', (rule, buy, evidence) => {
  test('holds the commission (the sale answers as attributed); release credits it exactly once', async () => {
    const f = await program();
    const sale = await buy(f);
    expect(sale).toMatchObject({ success: true, message: 'Sale recorded and commission created' });
    const held = await commission(f, sale.commission_id);
    expect(held).toMatchObject({ status: 'pending', held_for_review: true, credited_at: null });
    expect(held.hold.rules).toEqual([{ rule, evidence: expect.objectContaining(evidence) }]);
    const { commissions: heldList } = await h.admin('GET', `/programs/${f.programId}/commissions?held=true`);
    expect(heldList.map((c: { id: number }) => c.id)).toEqual([sale.commission_id]);
    // Never credited by approval or the hold period while held.
    await expect(h.admin('POST', `/programs/${f.programId}/commissions/${sale.commission_id}/approve`)).rejects.toThrow(
      /release or reject/,
    );

    const released = await h.admin('POST', `/programs/${f.programId}/commissions/${sale.commission_id}/release`);
    expect(released.commission).toMatchObject({
      status: 'approved',
      held_for_review: false,
      credited_at: expect.any(String),
    });
    expect(released.commission.hold.released_at).toEqual(expect.any(String));
    expect(await balance(f)).toBe(1_000);
    await expect(h.admin('POST', `/programs/${f.programId}/commissions/${sale.commission_id}/release`)).rejects.toThrow(
      /400/,
    );
    expect(await balance(f)).toBe(1_000);
  });

  test('reject reverses it whole and leaves the balance untouched', async () => {
    const f = await program();
    const sale = await buy(f);
    const rejected = await h.admin('POST', `/programs/${f.programId}/commissions/${sale.commission_id}/reject`);
    expect(rejected.commission).toMatchObject({
      status: 'reversed',
      reversed_cents: 1_000,
      held_for_review: false,
      credited_at: null,
      reason: `rejected as fraud: ${rule}`,
    });
    expect(await balance(f)).toBe(0);
    await expect(h.admin('POST', `/programs/${f.programId}/commissions/${sale.commission_id}/release`)).rejects.toThrow(
      /400/,
    );
  });
});

test('with the rules off (the default) nothing is held; an ordinary sale under the rules is not held either', async () => {
  const off = await createProgramFixture(h);
  const { partner } = await h.admin('POST', `/programs/${off.programId}/partners`, {
    code: `${off.partnerCode}-o`,
    name: 'Jane',
    email: 'jane.partner@example.com',
  });
  const offSale = await journey(
    { ...off, partnerId: partner.id, partnerCode: partner.code },
    'jane.partner@example.com',
    0.1,
  );
  expect((await commission(off, offSale.commission_id)).held_for_review).toBe(false);

  const on = await program();
  const ordinary = await journey(on, 'someone@example.org', 10);
  expect(await commission(on, ordinary.commission_id)).toMatchObject({ held_for_review: false, hold: null });
});

test('click_spike measures the partner against their own history: a busy partner at their usual rate is not held', async () => {
  const f = await program();
  // 60 clicks ten days ago: 2 per 24 hours over the 30-day baseline, so 6 today is 3× (not above it).
  await clicks(f, 60, 10);
  await clicks(f, 5);
  const usual = await journey(f, 'buyer@example.org');
  expect(await commission(f, usual.commission_id)).toMatchObject({ held_for_review: false, hold: null });
  await clicks(f, 1);
  const above = await journey(f, 'buyer@example.org');
  expect((await commission(f, above.commission_id)).hold.rules).toEqual([
    { rule: 'click_spike', evidence: { recent_clicks: 8, window_hours: 24, baseline_clicks_per_window: 2, factor: 3 } },
  ]);
});

test('a commission not held by fraud rules cannot be released or rejected', async () => {
  const f = await program();
  const sale = await journey(f, 'someone@example.org', 10);
  for (const action of ['release', 'reject'])
    await expect(
      h.admin('POST', `/programs/${f.programId}/commissions/${sale.commission_id}/${action}`),
    ).rejects.toThrow(/not held/);
});

describe('self_referral compares normalised addresses (the partner is Jane.Doe@gmail.com)', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await program('Jane.Doe@gmail.com', { self_referral: true });
  });

  test.each([
    ['as entered', 'Jane.Doe@gmail.com'],
    ['upper case', 'JANE.DOE@GMAIL.COM'],
    ['surrounding spaces', '  jane.doe@gmail.com  '],
    ['trailing dot on the domain', 'jane.doe@gmail.com.'],
    ['a +tag', 'jane.doe+deals@gmail.com'],
    ['Gmail dots removed', 'janedoe@gmail.com'],
    ['Gmail dots moved', 'j.a.n.e.d.o.e@gmail.com'],
    ['googlemail.com', 'jane.doe@googlemail.com'],
    ['+tag at googlemail.com with a trailing dot', 'janedoe+1@googlemail.com.'],
    ['all of them', ' J.A.N.E.Doe+Promo@GoogleMail.COM. '],
  ])('%s (%j) is held, the evidence naming both forms', async (_label, email) => {
    const sale = await journey(f, email);
    expect(await commission(f, sale.commission_id)).toMatchObject({
      held_for_review: true,
      hold: {
        rules: [
          {
            rule: 'self_referral',
            evidence: {
              customer_id: expect.any(Number),
              match: 'email',
              partner_email: 'Jane.Doe@gmail.com',
              compared_as: 'janedoe@gmail.com',
            },
          },
        ],
      },
    });
  });

  test.each([
    ['another Gmail mailbox', 'jane.doe2@gmail.com'],
    ['the same name at another domain (dots count there)', 'janedoe@example.com'],
  ])('%s (%j) is not held', async (_label, email) => {
    const sale = await journey(f, email);
    expect(await commission(f, sale.commission_id)).toMatchObject({ held_for_review: false, hold: null });
  });

  test('a customer hashed before normalisation (version 2) is compared as then: trimmed and lower-cased', async () => {
    // As rows written before normalisation: the stored hash replaced by the version-2 hash of `email`.
    const hashedAsVersion2 = (email: string) => async (key: string) => {
      await h.ctx.db.em
        .fork()
        .execute(
          'update customer set email_hash = ?, email_hash_version = 2 where program_id = ? and customer_key = ?',
          [h.ctx.hashEmail(email, 2), f.programId, key],
        );
    };
    const exact = await journey(f, 'x@example.org', 10, hashedAsVersion2(' JANE.DOE@gmail.com'));
    expect((await commission(f, exact.commission_id)).hold.rules).toEqual([
      {
        rule: 'self_referral',
        evidence: expect.objectContaining({ partner_email: 'Jane.Doe@gmail.com', compared_as: 'jane.doe@gmail.com' }),
      },
    ]);
    const tagged = await journey(f, 'x@example.org', 10, hashedAsVersion2('jane.doe+x@gmail.com'));
    expect(await commission(f, tagged.commission_id)).toMatchObject({ held_for_review: false });
  });
});
