/**
 * Partners asking for a payout in the portal: refused while the program does not allow it (the
 * default), refused below the minimum, one open request per currency; the merchant sees the
 * request (an open payout, and in the run's preview), and the next run pays it with all that is due.
 */
import { expect, test } from 'vitest';
import { ADMIN_TOKEN, createProgramFixture } from '../helpers/harness.ts';
import { usePayoutRunHarness } from './payout-run-steps.ts';

const { h, credited, session } = usePayoutRunHarness();

test('a payout request: off by default, the minimum, visible to the merchant, paid by the next run', async () => {
  const f = await createProgramFixture(h, {
    commission_rate_bps: 1000,
    payout_settings: { rail: 'paypal', minimum_cents: { USD: 5_000 } },
  });
  const me = await session(f, f.partnerId);
  await me('PUT', '/payout-method', { kind: 'paypal', email: 'jane@example.com' });
  await credited(f, 60_000); // 60.00
  await credited(f, 20_000); // 20.00

  // Off by default: refused, nothing recorded.
  expect((await me('GET', '/earnings')).body.payout_requests).toEqual({
    allowed: false,
    minimum_cents: { USD: 5_000 },
  });
  const off = await me('POST', '/payout-requests', { currency: 'USD' });
  expect([off.status, off.body.error.code]).toEqual([403, 'forbidden']);
  expect((await h.admin('GET', `/programs/${f.programId}/payouts`)).payouts).toEqual([]);

  await h.admin('PATCH', `/programs/${f.programId}`, {
    payout_settings: { rail: 'paypal', minimum_cents: { USD: 5_000 }, partner_requests: true },
  });
  expect((await me('GET', '/earnings')).body.payout_requests.allowed).toBe(true);
  const small = await me('POST', '/payout-requests', { currency: 'USD', amount_cents: 1_000 });
  expect([small.status, small.body.error.code]).toEqual([400, 'invalid_request']);
  expect(small.body.error.details).toMatchObject({ minimum_cents: 5_000, available_cents: 8_000 });
  const tooMuch = await me('POST', '/payout-requests', { currency: 'USD', amount_cents: 9_000 });
  expect(tooMuch.status).toBe(400);
  const bad = await me('POST', '/payout-requests', { currency: 'GBP' });
  expect(bad.status).toBe(400);

  const asked = await me('POST', '/payout-requests', { currency: 'USD', amount_cents: 6_000 });
  expect(asked.status, JSON.stringify(asked.body)).toBe(201);
  expect(asked.body.payout).toMatchObject({ status: 'open', requested_cents: 6_000, amount_cents: 6_000 });
  const twice = await me('POST', '/payout-requests', { currency: 'USD' });
  expect([twice.status, twice.body.error.message]).toEqual([400, 'You already have an open payout request in USD']);

  // The merchant sees it: an open payout, and the payout the run would pay.
  const open = await h.admin('GET', `/programs/${f.programId}/payouts?status=open`);
  expect(open.payouts.map((p: { id: number; partner: number }) => [p.id, p.partner])).toEqual([
    [asked.body.payout.id, f.partnerId],
  ]);
  const preview = await h.admin('GET', `/programs/${f.programId}/payout-runs/preview?currency=USD`);
  expect(preview.partners[0]).toMatchObject({
    request_id: asked.body.payout.id,
    outcome: 'paid',
    payable_cents: 8_000,
  });

  // The run pays the request through its rail, with everything due (a run pays all that is due).
  const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
  expect(run.payouts).toHaveLength(1);
  expect(run.payouts[0]).toMatchObject({
    id: asked.body.payout.id,
    status: 'processing',
    run: run.run.id,
    rail: 'paypal',
    requested_cents: 6_000,
    amount_cents: 8_000,
  });
  expect((await me('GET', '/earnings')).body.balances).toEqual([{ currency: 'USD', balance_cents: 0 }]);
  // No longer open: a new request may be made (nothing available now: refused).
  const again = await me('POST', '/payout-requests', { currency: 'USD' });
  expect(again.body.error.details).toMatchObject({ available_cents: 0 });
});

test("a request is refused when nothing is available; it is its own program's only", async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000, payout_settings: { partner_requests: true } });
  const me = await session(f, f.partnerId);
  const none = await me('POST', '/payout-requests', { currency: 'USD' });
  expect([none.status, none.body.error.details.available_cents]).toEqual([400, 0]);
  await credited(f, 10_000);
  const asked = await me('POST', '/payout-requests', { currency: 'USD' });
  expect(asked.body.payout).toMatchObject({ requested_cents: null, amount_cents: 1_000 });
  const mine = await h.admin('GET', `/programs/${f.programId}/payouts`);
  expect(mine.payouts.map((p: { id: number }) => p.id)).toEqual([asked.body.payout.id]);
  const other = await createProgramFixture(h, { payout_settings: { partner_requests: true } });
  expect((await h.admin('GET', `/programs/${other.programId}/payouts`)).payouts).toEqual([]);
  const cross = await h.request(`/api/v1/admin/programs/${other.programId}/payouts/${asked.body.payout.id}/pay`, {
    body: {},
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(cross.status).toBe(404);
});
