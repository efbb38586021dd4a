/**
 * A payout run says who it passes by and why, before (the preview) and after (the run's answer
 * and its page): one partner per skip reason, each with the amounts behind it; then the same
 * program through a rail that pays everyone, and the schedule's hold. A failed payout notifies
 * the partner with the reason.
 */
import { expect, test } from 'vitest';
import { bearer } from '../helpers/harness.ts';
import { createProgramFixture } from '../helpers/harness.ts';
import { usePayoutRunHarness } from './payout-run-steps.ts';

const { h, next, sale, credited, session, portal } = usePayoutRunHarness();

type PreviewRow = { partner_id: number; outcome: string; skip_code: string | null; [k: string]: unknown };

test('the preview and the run give every partner with a balance a reason, the run page keeps them', async () => {
  const f = await createProgramFixture(h, {
    commission_rate_bps: 1000,
    payout_settings: { rail: 'paypal', minimum_cents: { USD: 5_000 } },
  });
  const partner = async (name: string, kind?: 'paypal' | 'wise') => {
    const p = (await h.admin('POST', `/programs/${f.programId}/partners`, { code: `x${next()}y`, name })).partner;
    if (kind === 'paypal') await (await portal(f, p.id))('PUT', { kind, email: `p${p.id}@example.com` });
    if (kind === 'wise') await (await portal(f, p.id))('PUT', { kind, name, email: `w${p.id}@example.com` });
    return p as { id: number; code: string };
  };
  const paid = await partner('Paid', 'paypal');
  const noDetails = await partner('No details');
  const wise = await partner('Wise only', 'wise');
  const small = await partner('Small', 'paypal');
  const held = await partner('Held', 'paypal');
  const owing = await partner('Owing', 'paypal');

  await credited(f, 60_000, paid.code); // 60.00
  await credited(f, 60_000, noDetails.code);
  await credited(f, 70_000, wise.code);
  await credited(f, 30_000, small.code); // 30.00 < 50.00
  await sale(f, 40_000, held.code); // 40.00 pending (hold period of 30 days, not approved)
  // Owing: paid out, then the sale refunded in full: the balance is -60.00.
  const owed = await sale(f, 60_000, owing.code);
  await h.admin('POST', `/programs/${f.programId}/commissions/${owed.commissionId}/approve`, {});
  await h.admin('POST', `/programs/${f.programId}/commissions/${owed.commissionId}/pay`, {});
  const refund = await h.request('/api/v1/track/refund', {
    body: { transaction_id: owed.transactionId },
    headers: bearer(f.liveKey),
  });
  expect(refund.body.status).toBe('reversed');
  // Held by fraud rules: a sale seconds after its click.
  await h.admin('PATCH', `/programs/${f.programId}`, { fraud_rules: { fast_conversion_seconds: 3600 } });
  const fraud = await sale(f, 20_000, held.code);
  await h.admin('PATCH', `/programs/${f.programId}`, { fraud_rules: null });

  const preview = await h.admin('GET', `/programs/${f.programId}/payout-runs/preview?currency=USD`);
  const rows = new Map<number, PreviewRow>(preview.partners.map((r: PreviewRow) => [r.partner_id, r]));
  expect(preview.rail).toBe('paypal');
  expect(rows.get(paid.id)).toMatchObject({ outcome: 'paid', skip_code: null, payable_cents: 6_000, method: 'paypal' });
  expect(rows.get(noDetails.id)).toMatchObject({
    outcome: 'skipped',
    skip_code: 'no_payout_details',
    balance_cents: 6_000,
    payable_cents: 6_000,
    method: null,
  });
  expect(rows.get(wise.id)).toMatchObject({ skip_code: 'method_not_in_run', method: 'wise', balance_cents: 7_000 });
  expect(rows.get(wise.id)!.skip_reason).toBe('Payout details are for wise, not for this paypal run');
  expect(rows.get(small.id)).toMatchObject({ skip_code: 'below_minimum', payable_cents: 3_000, minimum_cents: 5_000 });
  expect(rows.get(small.id)!.skip_reason).toBe('Below the minimum payout (30.00 USD < 50.00 USD)');
  expect(rows.get(held.id)).toMatchObject({
    skip_code: 'held',
    balance_cents: 0,
    pending_cents: 4_000,
    review_held_cents: 2_000,
  });
  expect(rows.get(held.id)!.skip_reason).toContain('40.00 USD not yet due');
  expect(rows.get(owing.id)).toMatchObject({ skip_code: 'negative_balance', balance_cents: -6_000, owed_cents: 6_000 });
  expect(preview.totals).toEqual([{ currency: 'USD', paid: 1, skipped: 5, payable_cents: 6_000 }]);
  // The fraud-held commission is the one counted as held for review.
  const c = await h.admin('GET', `/programs/${f.programId}/commissions?limit=50`);
  expect(c.commissions.find((x: { id: number }) => x.id === fraud.commissionId).held_for_review).toBe(true);

  // A manual run pays whoever has a balance over the minimum, details or not.
  const manual = await h.admin('GET', `/programs/${f.programId}/payout-runs/preview?currency=USD&rail=manual`);
  const outcome = (id: number) => manual.partners.find((r: PreviewRow) => r.partner_id === id).outcome;
  expect([outcome(noDetails.id), outcome(wise.id), outcome(small.id)]).toEqual(['paid', 'paid', 'skipped']);
  // Another currency: nobody.
  expect((await h.admin('GET', `/programs/${f.programId}/payout-runs/preview?currency=EUR`)).partners).toEqual([]);
  const bad = await h.request(`/api/v1/admin/programs/${f.programId}/payout-runs/preview?currency=XYZ`, {
    method: 'GET',
    headers: { authorization: `Bearer test-admin-token-0123456789-abcdef` },
  });
  expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);

  // The run does what the preview said, and says it; the run's page says it again.
  const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
  expect(run.payouts.map((p: { partner: number }) => p.partner)).toEqual([paid.id]);
  const codes = (skipped: Array<{ partner_id: number; code: string }>) =>
    Object.fromEntries(skipped.map((s) => [s.partner_id, s.code]));
  const expected = {
    [noDetails.id]: 'no_payout_details',
    [wise.id]: 'method_not_in_run',
    [small.id]: 'below_minimum',
    [held.id]: 'held',
    [owing.id]: 'negative_balance',
  };
  expect(codes(run.skipped)).toEqual(expected);
  const page = await h.admin('GET', `/programs/${f.programId}/payout-runs/${run.run.id}`);
  expect(page.skipped).toEqual(run.skipped);
  expect(page.skipped.find((s: { partner_id: number }) => s.partner_id === owing.id)).toMatchObject({
    balance_cents: -6_000,
    reason: 'Negative balance: the partner owes back 60.00 USD',
  });

  // The schedule's hold: commissions credited within `hold_days` are not due yet.
  await h.admin('PATCH', `/programs/${f.programId}`, {
    payout_settings: { rail: 'paypal', minimum_cents: { USD: 5_000 }, hold_days: 30 },
  });
  await credited(f, 80_000, paid.code);
  const later = await h.admin('GET', `/programs/${f.programId}/payout-runs/preview?currency=USD`);
  expect(later.partners.find((r: PreviewRow) => r.partner_id === paid.id)).toMatchObject({
    skip_code: 'held',
    balance_cents: 8_000,
    not_due_cents: 8_000,
    payable_cents: 0,
  });
});

test('a failed payout notifies the partner with the reason; the portal shows it', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000, payout_settings: { rail: 'paypal' } });
  const me = await session(f, f.partnerId);
  await me('PUT', '/payout-method', { kind: 'paypal', email: 'jane@example.com' });
  await credited(f, 50_000);
  const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
  const payoutId = run.payouts[0].id;
  expect((await me('GET', '/notifications')).body.unread_count).toBe(0);
  await h.admin('POST', `/programs/${f.programId}/payouts/${payoutId}/fail`, { reason: 'PayPal account unverified' });

  const notes = (await me('GET', '/notifications')).body;
  expect(notes.unread_count).toBe(1);
  expect(notes.notifications[0]).toMatchObject({
    kind: 'partner_payout_failed',
    commission_id: null,
    payload: { payout_id: payoutId, currency: 'USD', amount_cents: 5_000, failure_reason: 'PayPal account unverified' },
  });
  const earnings = (await me('GET', '/earnings')).body;
  expect(earnings.payouts[0]).toMatchObject({
    id: payoutId,
    status: 'failed',
    failure_reason: 'PayPal account unverified',
  });
  expect(earnings.balances).toEqual([{ currency: 'USD', balance_cents: 5_000 }]);
  // Failing it again changes nothing and notifies no one twice.
  await h.admin('POST', `/programs/${f.programId}/payouts/${payoutId}/fail`, { reason: 'again' });
  expect((await me('GET', '/notifications')).body.total).toBe(1);
});
