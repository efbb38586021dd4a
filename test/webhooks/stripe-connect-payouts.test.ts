/**
 * Stripe Connect payout runs through the official `stripe` SDK. There is no network here: a local
 * node:http server stands in for api.stripe.com (STRIPE_API_BASE) and answers `POST /v1/transfers`
 * with the Transfer object's published shape (../providers/fixtures/published/stripe/transfer.json,
 * sources in its SOURCES.md). Like Stripe, it answers a repeated idempotency key with the first
 * transfer. Its first answer is a 500, so the SDK retries: the same key reaches it twice and
 * exactly one transfer is made. A signed `transfer.reversed` delivery then fails the payout and
 * gives the amount back to the balance.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, test } from 'vitest';
import { generateSealingKey } from '../../src/core/sealed-secrets.ts';
import { loadPublished } from '../providers/fixtures/published.ts';
import { stripeEvent } from '../providers/fixtures/stripe.ts';
import { bearer, clickAndLead } from '../helpers/harness.ts';
import { PROVIDER_KITS } from './provider-kits.ts';
import { useWebhookHarness } from './webhook-harness.ts';

type Json = Record<string, any>;
const API_KEY = 'rk_live_connect_payouts_0123456789abcd';
const requests: Array<{ key: string | undefined; authorization: string | undefined; form: URLSearchParams }> = [];
const transfers = new Map<string, Json>();
let failNext = 1;
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString()));
  req.on('end', () => {
    const key = req.headers['idempotency-key'] as string | undefined;
    const form = new URLSearchParams(raw);
    requests.push({ key, authorization: req.headers.authorization, form });
    res.setHeader('content-type', 'application/json');
    if (req.method !== 'POST' || req.url !== '/v1/transfers') {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: `Unrecognized request URL` } }));
      return;
    }
    if (failNext > 0) {
      failNext--;
      res.statusCode = 500;
      res.end(JSON.stringify({ error: { type: 'api_error', message: 'stand-in: transient error' } }));
      return;
    }
    let transfer = key ? transfers.get(key) : undefined;
    if (!transfer) {
      transfer = {
        ...loadPublished('stripe', 'transfer'),
        id: `tr_standin_${transfers.size + 1}`,
        amount: Number(form.get('amount')),
        currency: form.get('currency'),
        destination: form.get('destination'),
        transfer_group: form.get('transfer_group'),
        metadata: Object.fromEntries(
          [...form].filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v]),
        ),
      };
      transfers.set(key ?? transfer.id, transfer);
    }
    res.end(JSON.stringify(transfer));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const w = useWebhookHarness(PROVIDER_KITS.stripe, {
  DATA_ENCRYPTION_KEYS: generateSealingKey('test1'),
  STRIPE_API_BASE: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
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
  expect(run.transfers).toEqual({ sent: [{ payout_id: payout.id, transfer_id: 'tr_standin_1' }], errors: [] });
  expect(payout).toMatchObject({
    status: 'paid',
    amount_cents: 1_100,
    rail: 'stripe_connect',
    external_id: 'tr_standin_1',
  });
  // The SDK retried the 500 with the same key: two requests, one transfer.
  expect(requests.map((r) => r.key)).toEqual([
    `payout-${f.programId}-${payout.id}`,
    `payout-${f.programId}-${payout.id}`,
  ]);
  expect(transfers.size).toBe(1);
  expect(requests[0]!.authorization).toBe(`Bearer ${API_KEY}`);
  expect(Object.fromEntries(requests[1]!.form)).toMatchObject({
    amount: '1100',
    currency: 'usd',
    destination: 'acct_1PartnerConnect9',
    transfer_group: `payout_run_${run.run.id}`,
    'metadata[payout_id]': String(payout.id),
  });
  // Sending the run again makes nothing: its payout is paid.
  const again = await h.admin('POST', `/programs/${f.programId}/payout-runs/${run.run.id}/transfers`, {});
  expect(again.transfers).toEqual({ sent: [], errors: [] });
  expect(requests).toHaveLength(2);
  const balance = async () =>
    (await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`)).currencies[0];
  expect(await balance()).toMatchObject({ balance_cents: 0, payouts_cents: 1_100, reconciles: true });

  // The merchant reverses the transfer in Stripe: Stripe sends transfer.reversed.
  const reversed = { ...transfers.get(`payout-${f.programId}-${payout.id}`)!, amount_reversed: 1_100, reversed: true };
  const delivery = await w.send(
    f.programId,
    stripeEvent('transfer.reversed', reversed, { id: 'evt_transfer_reversed_1' }),
  );
  expect(delivery.status).toBe(200);
  await processed(f.programId);
  const after = await h.admin('GET', `/programs/${f.programId}/payouts/${payout.id}`);
  expect(after.payout).toMatchObject({ status: 'failed', failure_reason: 'Stripe transfer tr_standin_1 reversed' });
  expect(await balance()).toMatchObject({ balance_cents: 1_100, payouts_cents: 0, reconciles: true });
  // A redelivery changes nothing more.
  await w.send(f.programId, stripeEvent('transfer.reversed', reversed, { id: 'evt_transfer_reversed_2' }));
  await processed(f.programId);
  expect(await balance()).toMatchObject({ balance_cents: 1_100, reconciles: true });
});
