/**
 * Payout runs through the batch-file rails, end to end over the admin and partner APIs: a partner
 * records payout details in the portal, the monthly schedule creates the payouts over the minimum,
 * the PayPal and Wise files are parsed back against the published column sets (docs/payouts.md
 * names the sources), confirming marks them paid, and a failed payout restores the balance.
 */
import { parse } from 'csv-parse/sync';
import { expect, test } from 'vitest';
import { runScheduledPayouts } from '../../src/core/payouts/scheduled-payouts.ts';
import { WISE_COLUMNS } from '../../src/core/payouts/payout-files.ts';
import { ADMIN_TOKEN, createProgramFixture } from '../helpers/harness.ts';
import { usePayoutRunHarness } from './payout-run-steps.ts';

const { h, next, credited, portal, file, statement } = usePayoutRunHarness();

test('PayPal: details in the portal, a monthly run over the minimum, the files, confirmation', async () => {
  const f = await createProgramFixture(h, {
    commission_rate_bps: 1000,
    payout_settings: { rail: 'paypal', minimum_cents: { USD: 5_000 }, schedule: 'monthly', day_of_month: 1 },
  });
  const small = (await h.admin('POST', `/programs/${f.programId}/partners`, { code: `s${next()}x`, name: 'Small' }))
    .partner;
  const none = (await h.admin('POST', `/programs/${f.programId}/partners`, { code: `n${next()}x`, name: 'No details' }))
    .partner;

  const me = await portal(f, f.partnerId);
  const set = await me('PUT', { kind: 'paypal', email: 'Jane.Partner@Example.com' });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body.payout_method).toMatchObject({ kind: 'paypal', hint: 'j…@example.com' });
  expect(JSON.stringify((await me('GET')).body)).not.toContain('jane.partner');
  expect((await me('PUT', { kind: 'paypal', email: 'not-an-email' })).status).toBe(400);
  expect((await me('PUT', { kind: 'venmo', email: 'a@b.example' })).status).toBe(400);
  // Sealed at rest: the column holds no address.
  const raw: Array<{ details_sealed: string }> = await h.ctx.db.em
    .getConnection()
    .execute(`select details_sealed from payout_method`);
  expect(raw.map((r) => r.details_sealed).join()).not.toContain('example.com');
  expect(await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/payout-method`)).toMatchObject({
    payout_method: { kind: 'paypal', hint: 'j…@example.com' },
  });
  await (
    await portal(f, small.id)
  )('PUT', { kind: 'paypal', email: 'small@example.com' });

  const c1 = await credited(f, 60_000); // 6,000
  const c2 = await credited(f, 40_000); // 4,000
  await credited(f, 30_000, small.code); // 3,000: below the 5,000 minimum
  await credited(f, 90_000, none.code); // no payout details: not in a PayPal run

  const [created, again] = [await runScheduledPayouts(h.ctx.deps()), await runScheduledPayouts(h.ctx.deps())];
  expect(created).toHaveLength(1);
  expect(again).toHaveLength(0); // once per month
  const { run, payouts, skipped } = created[0]!;
  expect(run).toMatchObject({ rail: 'paypal', currency: 'USD', payoutCount: 1, totalCents: 10_000 });
  expect(run.scheduledFor).toBe(`${h.clock.now.toISOString().slice(0, 7)}-01`);
  expect(payouts.map((p) => [p.partner, p.status, p.amountCents])).toEqual([[f.partnerId, 'processing', 10_000]]);
  expect(skipped).toEqual([
    {
      partnerId: small.id,
      code: 'below_minimum',
      reason: 'Below the minimum payout (30.00 USD < 50.00 USD)',
      balanceCents: 3_000,
    },
    {
      partnerId: none.id,
      code: 'no_payout_details',
      reason: 'No payout details: the partner has not said where to be paid',
      balanceCents: 9_000,
    },
  ]);
  // The balance fell when the run sent it; the commissions are paid out.
  expect(await statement(f, f.partnerId)).toMatchObject({ balance_cents: 0, payouts_cents: 10_000, reconciles: true });
  const listed = await h.admin('GET', `/programs/${f.programId}/payout-runs`);
  expect(listed['payout-runs'].map((r: { id: number }) => r.id)).toEqual([run.id]);

  const csv = await file(f, run.id);
  expect(csv.status).toBe(200);
  expect(csv.type).toBe('text/csv; charset=utf-8');
  // PayPal Payouts web upload: no header; recipient, amount, currency, customer id, note, wallet.
  expect(parse(csv.text)).toEqual([
    ['jane.partner@example.com', '100.00', 'USD', `P${payouts[0]!.id}`, `Partner payout ${run.id}`, 'PAYPAL'],
  ]);
  const api = await file(f, run.id, 'paypal_json');
  const body = typeof api.body === 'string' ? JSON.parse(api.body) : api.body;
  expect(body).toEqual({
    sender_batch_header: {
      sender_batch_id: `program-${f.programId}-run-${run.id}`,
      email_subject: 'You have a payout',
      email_message: `Partner payout ${run.id}`,
    },
    items: [
      {
        recipient_type: 'EMAIL',
        amount: { value: '100.00', currency: 'USD' },
        note: `Partner payout ${run.id}`,
        sender_item_id: `payout-${payouts[0]!.id}`,
        receiver: 'jane.partner@example.com',
        recipient_wallet: 'PAYPAL',
      },
    ],
  });
  expect((await file(f, run.id, 'wise_csv')).status).toBe(400);

  const confirmed = await h.admin('POST', `/programs/${f.programId}/payout-runs/${run.id}/confirm`, {});
  expect(confirmed.payouts.map((p: { status: string }) => p.status)).toEqual(['paid']);
  const c = (await h.admin('GET', `/programs/${f.programId}/commissions?limit=50`)).commissions;
  expect(c.filter((x: { id: number }) => [c1, c2].includes(x.id)).map((x: { status: string }) => x.status)).toEqual([
    'paid',
    'paid',
  ]);
  // Confirming twice is refused; the payout stays paid.
  const twice = await h.request(`/api/v1/admin/programs/${f.programId}/payouts/${payouts[0]!.id}/confirm`, {
    method: 'POST',
    body: {},
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(twice.status).toBe(400);
});

test('Wise: the batch file, a failed payout restores the balance, the next run pays again', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000, payout_settings: { rail: 'wise' } });
  await (
    await portal(f, f.partnerId)
  )('PUT', { kind: 'wise', name: 'Jane Partner', email: 'jane@example.com' });
  const commissionId = await credited(f, 123_450); // 12,345

  const first = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
  expect(first.run).toMatchObject({ rail: 'wise', payout_count: 1, total_cents: 12_345, scheduled_for: null });
  const payout = first.payouts[0];
  const rows = parse((await file(f, first.run.id)).text) as string[][];
  expect(rows).toEqual([
    [...WISE_COLUMNS],
    ['Jane Partner', 'jane@example.com', `Payout ${payout.id}`, 'PERSON', 'target', '123.45', 'USD', 'USD'],
  ]);
  expect(await statement(f, f.partnerId)).toMatchObject({ balance_cents: 0, reconciles: true });

  const failed = await h.admin('POST', `/programs/${f.programId}/payouts/${payout.id}/fail`, {
    reason: 'recipient bank refused',
  });
  expect(failed.payout).toMatchObject({ status: 'failed', failure_reason: 'recipient bank refused' });
  expect(
    failed.commissions.map((c: { id: number; status: string; paid_at: string | null; payout: number | null }) => [
      c.id,
      c.status,
      c.paid_at,
      c.payout,
    ]),
  ).toEqual([[commissionId, 'approved', null, null]]);
  expect(await statement(f, f.partnerId)).toMatchObject({
    balance_cents: 12_345,
    payouts_cents: 0,
    unpaid_commissions_cents: 12_345,
    reconciles: true,
  });
  // Failing again changes nothing; a failed payout is no longer in the file.
  await h.admin('POST', `/programs/${f.programId}/payouts/${payout.id}/fail`, { reason: 'again' });
  expect(await statement(f, f.partnerId)).toMatchObject({ balance_cents: 12_345 });
  expect(parse((await file(f, first.run.id)).text)).toEqual([[...WISE_COLUMNS]]);

  const second = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
  expect(second.payouts.map((p: { amount_cents: number; status: string }) => [p.amount_cents, p.status])).toEqual([
    [12_345, 'processing'],
  ]);
  expect(await statement(f, f.partnerId)).toMatchObject({ balance_cents: 0, reconciles: true });
  const entries = (await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`)).ledger;
  expect(entries.map((e: { kind: string; delta_cents: number }) => [e.kind, e.delta_cents])).toEqual([
    ['payout', -12_345],
    ['payout_failed', 12_345],
    ['payout', -12_345],
    ['commission_credit', 12_345],
  ]);
});

test('a run pays only commissions credited before the hold, and partners of the rail only', async () => {
  const f = await createProgramFixture(h, {
    commission_rate_bps: 1000,
    payout_settings: { rail: 'paypal', hold_days: 7 },
  });
  await (
    await portal(f, f.partnerId)
  )('PUT', { kind: 'paypal', email: 'hold@example.com' });
  await credited(f, 10_000);
  h.clock.advanceDays(8);
  await credited(f, 20_000); // credited now: inside the 7-day hold
  const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
  expect(run.payouts.map((p: { amount_cents: number }) => p.amount_cents)).toEqual([1_000]);
  expect(await statement(f, f.partnerId)).toMatchObject({ balance_cents: 2_000, reconciles: true });
  // The same program through another rail: nobody has Wise details.
  const wise = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD', rail: 'wise' });
  expect(wise.payouts).toEqual([]);
  // Removing the details takes the partner out of later PayPal runs.
  expect((await (await portal(f, f.partnerId))('DELETE')).body).toEqual({ payout_method: null });
  h.clock.advanceDays(8);
  expect((await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' })).payouts).toEqual([]);
});
