/**
 * Stripe Connect runs a crash left half done: the worker was killed after the run made its
 * `processing` payouts (the balance already lowered), before or after Stripe made a transfer, and
 * before the payout was confirmed. The payout sweeper resumes them once they are older than
 * RESUME_AFTER_MS; before any send, the run's transfers are listed at Stripe (transfer group and
 * `metadata.payout_id`), so a transfer Stripe made is found, never made twice, even after Stripe's
 * 24-hour idempotency window. Stripe is a local stand-in (test/helpers/fake-stripe-transfers.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { createPayoutRun } from '../../src/core/payouts/payout-runs.ts';
import { RESUME_AFTER_MS, transferKey } from '../../src/core/payouts/payout-transfers.ts';
import { sweepPayoutSchedule } from '../../src/workers/sweep-payout-schedule.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe-transfers.ts';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

const stripe: FakeStripe = await startFakeStripe();
afterAll(() => stripe.close());
// The test runs the sweeper itself (SWEEP_INTERVAL_MS out of reach).
const h = useHarness({
  DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  STRIPE_API_BASE: stripe.url,
  SWEEP_INTERVAL_MS: '3600000',
});
const start = new Date();
beforeAll(() => {
  h.clock.now = start;
});
beforeEach(() => {
  stripe.requests.length = 0;
});
let seq = 0;

/** A Stripe Connect program whose partner has a connected account and `cents` of credited commission. */
async function program(cents: number): Promise<Fixture & { account: string }> {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000, payout_settings: { rail: 'stripe_connect' } });
  await h.admin('PUT', `/programs/${f.programId}/providers/stripe`, { signing_secret: 'whsec_resume_test_secret' });
  await h.admin('PATCH', `/programs/${f.programId}/providers/stripe`, { api_key: 'rk_live_resume_0123456789abcdef' });
  const invite = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
  const token = new URL(invite.invite_url).pathname.split('/').pop();
  const session = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'correct horse battery' } });
  const account = `acct_1Resume${++seq}`;
  const set = await h.request('/api/v1/partner/payout-method', {
    method: 'PUT',
    body: { kind: 'stripe_connect', account_id: account },
    headers: { cookie: session.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': session.body.csrf_token },
  });
  expect(set.status).toBe(200);
  const customer = `resume-${seq}`;
  await clickAndLead(h, f, customer);
  const sale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `resume-sale-${seq}`, amount_cents: cents * 10, customer_key: customer },
    headers: bearer(f.liveKey),
  });
  await h.admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`, {});
  return { ...f, account };
}

/** The worker killed right after the run made its payouts: processing, nothing confirmed. */
async function crashedRun(f: Fixture) {
  const { run, payouts } = await createPayoutRun(h.ctx.deps(), f.programId, { currency: 'USD' });
  expect(payouts.map((p) => p.status)).toEqual(['processing']);
  return { runId: run.id, payoutId: payouts[0]!.id };
}

const payoutOf = async (f: Fixture, id: number) =>
  (await h.admin('GET', `/programs/${f.programId}/payouts/${id}`)).payout;
const balance = async (f: Fixture) =>
  (await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`)).currencies[0];
const transfersOf = (payoutId: number) => stripe.transfers.filter((t) => t.metadata.payout_id === String(payoutId));
const posts = () => stripe.requests.filter((r) => r.method === 'POST');
const later = (ms: number) => h.clock.advanceDays(ms / 86_400_000);

test('Stripe made the transfer, the worker died before confirming, 25 hours pass: found and confirmed, not paid twice', async () => {
  const f = await program(2_500);
  const { runId, payoutId } = await crashedRun(f);
  const made = stripe.make(
    {
      amount: '2500',
      currency: 'usd',
      destination: f.account,
      transfer_group: `payout_run_${runId}`,
      'metadata[program_id]': String(f.programId),
      'metadata[payout_id]': String(payoutId),
    },
    transferKey(f.programId, payoutId),
  );
  later(25 * 3_600_000);
  stripe.forgetKeys(); // Stripe's idempotency window is over: a new send would make a second transfer.

  await sweepPayoutSchedule(h.ctx);
  expect(posts()).toEqual([]);
  expect(transfersOf(payoutId)).toHaveLength(1);
  expect(await payoutOf(f, payoutId)).toMatchObject({ status: 'paid', external_id: made.id });
  expect(await balance(f)).toMatchObject({ balance_cents: 0, payouts_cents: 2_500, reconciles: true });
  // Later sweeps and a merchant's re-send change nothing.
  await sweepPayoutSchedule(h.ctx);
  const again = await h.admin('POST', `/programs/${f.programId}/payout-runs/${runId}/transfers`, {});
  expect(again.transfers).toEqual({ sent: [], errors: [] });
  expect(transfersOf(payoutId)).toHaveLength(1);
});

test('the merchant re-sends a day later, before any sweep: the transfer is found, no second one', async () => {
  const f = await program(1_200);
  const { runId, payoutId } = await crashedRun(f);
  const made = stripe.make({
    amount: '1200',
    currency: 'usd',
    destination: f.account,
    transfer_group: `payout_run_${runId}`,
    'metadata[program_id]': String(f.programId),
    'metadata[payout_id]': String(payoutId),
  });
  later(25 * 3_600_000);
  const resent = await h.admin('POST', `/programs/${f.programId}/payout-runs/${runId}/transfers`, {});
  expect(resent.transfers).toEqual({ sent: [{ payout_id: payoutId, transfer_id: made.id }], errors: [] });
  expect(posts()).toEqual([]);
  expect(transfersOf(payoutId)).toHaveLength(1);
});

test('no transfer was made: the sweeper sends it once the grace period is over, with the payout’s key', async () => {
  const f = await program(3_000);
  const { payoutId } = await crashedRun(f);
  later(RESUME_AFTER_MS - 60_000);
  await sweepPayoutSchedule(h.ctx);
  expect(stripe.requests).toEqual([]); // a run this young may still be sending in its own process
  expect((await payoutOf(f, payoutId)).status).toBe('processing');

  later(2 * 60_000);
  await sweepPayoutSchedule(h.ctx);
  expect(posts().map((r) => r.key)).toEqual([transferKey(f.programId, payoutId)]);
  expect(transfersOf(payoutId)).toHaveLength(1);
  expect(await payoutOf(f, payoutId)).toMatchObject({ status: 'paid', external_id: transfersOf(payoutId)[0]!.id });
  expect(await balance(f)).toMatchObject({ balance_cents: 0, payouts_cents: 3_000, reconciles: true });
});

test('Stripe cannot list the run’s transfers: nothing is sent, the next sweep pays', async () => {
  const f = await program(1_500);
  const { payoutId } = await crashedRun(f);
  later(RESUME_AFTER_MS + 60_000);
  stripe.failNext('GET', 3); // the SDK's request and its two retries
  await sweepPayoutSchedule(h.ctx);
  expect(posts()).toEqual([]);
  expect((await payoutOf(f, payoutId)).status).toBe('processing');
  await sweepPayoutSchedule(h.ctx);
  expect(transfersOf(payoutId)).toHaveLength(1);
  expect((await payoutOf(f, payoutId)).status).toBe('paid');
});

test('the transfer Stripe made was reversed meanwhile: the payout fails and the balance gets the amount back', async () => {
  const f = await program(800);
  const { runId, payoutId } = await crashedRun(f);
  const made = stripe.make({
    amount: '800',
    currency: 'usd',
    destination: f.account,
    transfer_group: `payout_run_${runId}`,
    'metadata[program_id]': String(f.programId),
    'metadata[payout_id]': String(payoutId),
  });
  Object.assign(made, { reversed: true, amount_reversed: 800 });
  later(RESUME_AFTER_MS + 60_000);
  await sweepPayoutSchedule(h.ctx);
  expect(posts()).toEqual([]);
  expect(await payoutOf(f, payoutId)).toMatchObject({
    status: 'failed',
    failure_reason: `Stripe transfer ${made.id} reversed`,
  });
  expect(await balance(f)).toMatchObject({ balance_cents: 800, payouts_cents: 0, reconciles: true });
});
