/**
 * Stripe Connect payout runs through the official `stripe` SDK. There is no network here: a local
 * node:http server stands in for api.stripe.com (STRIPE_API_BASE; test/helpers/fake-stripe-transfers.ts)
 * and answers `GET` and `POST /v1/transfers` with the Transfer object's published shape
 * (../providers/fixtures/published/stripe/transfer.json, sources in its SOURCES.md). Like Stripe,
 * it answers a repeated idempotency key with the first transfer. The run first lists its transfer
 * group (none yet); the stand-in's first answer to the transfer is a 500, so the SDK retries: the
 * same key reaches it twice and exactly one transfer is made. A signed `transfer.reversed`
 * delivery then fails the payout and gives the amount back to the balance.
 */
import { afterAll, expect, test } from 'vitest';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { stripeEvent } from '../providers/fixtures/stripe.ts';
import { bearer, clickAndLead } from '../helpers/harness.ts';
import { startFakeStripe } from '../helpers/fake-stripe-transfers.ts';
import { PROVIDER_KITS } from './provider-kits.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const API_KEY = 'rk_live_connect_payouts_0123456789abcd';
const stripe = await startFakeStripe();
stripe.failNext('POST', 1);
const requests = stripe.requests;
afterAll(() => stripe.close());

const w = useWebhookHarness(PROVIDER_KITS.stripe, {
  DATA_ENCRYPTION_KEYS: generateSealingKey('test1'),
  STRIPE_API_BASE: stripe.url,
});

/** Waits until the newest inbox row of the program is processed. */
const processed = async (programId: number) =>
  w.waitForInbox(programId, Math.max(...(await w.inbox(programId)).map((r) => r.id as number)), 'processed');

test('a Stripe Connect run pays once through a retried request; a reversed transfer fails the payout', async () => {
  const { h } = w;
  const f = await w.newProgram({ payout_settings: { rail: 'stripe_connect' } });
  await h.admin('PATCH', `/programs/${f.programId}/providers/stripe`, { api_key: API_KEY });
  const invite = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
  const token = new URL(invite.invite_url).pathname.split('/').pop();
  const session = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'correct horse battery' } });
  const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0]!;
  const set = await h.request('/api/v1/partner/payout-method', {
    method: 'PUT',
    body: { kind: 'stripe_connect', account_id: 'acct_1PartnerConnect9' },
    headers: { cookie, 'x-csrf-token': session.body.csrf_token },
  });
  expect(set.body).toEqual({
    payout_method: { kind: 'stripe_connect', hint: 'acct_…ect9', updated_at: expect.any(String) },
  });

  await clickAndLead(h, f, 'connect-1');
  const sale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'connect-sale-1', amount_cents: 110_00, customer_key: 'connect-1' },
    headers: bearer(f.liveKey),
  });
  await h.admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`, {});

  const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
  const payout = run.payouts[0];
  expect(run.transfers).toEqual({ sent: [{ payout_id: payout.id, transfer_id: 'tr_fake_1' }], errors: [] });
  expect(payout).toMatchObject({
    status: 'paid',
    amount_cents: 1_100,
    rail: 'stripe_connect',
    external_id: 'tr_fake_1',
  });
  // The run's transfer group was listed first (nothing made yet); the SDK retried the 500 with the
  // same key: two requests, one transfer.
  expect(requests.map((r) => [r.method, r.query.get('transfer_group'), r.key])).toEqual([
    ['GET', `payout_run_${run.run.id}`, undefined],
    ['POST', null, `payout-${f.programId}-${payout.id}`],
    ['POST', null, `payout-${f.programId}-${payout.id}`],
  ]);
  expect(stripe.transfers).toHaveLength(1);
  expect(requests[0]!.authorization).toBe(`Bearer ${API_KEY}`);
  expect(Object.fromEntries(requests[2]!.form)).toMatchObject({
    amount: '1100',
    currency: 'usd',
    destination: 'acct_1PartnerConnect9',
    transfer_group: `payout_run_${run.run.id}`,
    'metadata[payout_id]': String(payout.id),
  });
  // Sending the run again makes nothing: its payout is paid.
  const again = await h.admin('POST', `/programs/${f.programId}/payout-runs/${run.run.id}/transfers`, {});
  expect(again.transfers).toEqual({ sent: [], errors: [] });
  expect(requests).toHaveLength(3);
  const balance = async () =>
    (await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`)).currencies[0];
  expect(await balance()).toMatchObject({ balance_cents: 0, payouts_cents: 1_100, reconciles: true });

  // The merchant reverses the transfer in Stripe: Stripe sends transfer.reversed.
  const reversed = { ...stripe.transfers[0]!, amount_reversed: 1_100, reversed: true };
  const delivery = await w.send(
    f.programId,
    stripeEvent('transfer.reversed', reversed, { id: 'evt_transfer_reversed_1' }),
  );
  expect(delivery.status).toBe(200);
  await processed(f.programId);
  const after = await h.admin('GET', `/programs/${f.programId}/payouts/${payout.id}`);
  expect(after.payout).toMatchObject({ status: 'failed', failure_reason: 'Stripe transfer tr_fake_1 reversed' });
  expect(await balance()).toMatchObject({ balance_cents: 1_100, payouts_cents: 0, reconciles: true });
  // A redelivery changes nothing more.
  await w.send(f.programId, stripeEvent('transfer.reversed', reversed, { id: 'evt_transfer_reversed_2' }));
  await processed(f.programId);
  expect(await balance()).toMatchObject({ balance_cents: 1_100, reconciles: true });
});
