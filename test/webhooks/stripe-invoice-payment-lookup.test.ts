/**
 * Stripe basil invoices linked to their PaymentIntent through the API, without `invoice_payment.paid`:
 * with an API key on the program's Stripe connection, a basil `invoice.paid` (recorded under the
 * invoice id) makes the service ask `GET /v1/invoice_payments?invoice=in_…` through the official
 * `stripe` SDK, and the paid PaymentIntent it names is linked to the sale, so refunds naming the
 * PaymentIntent find it (src/core/refunds/alias-lookup.ts). The other way round, a refund whose sale is
 * not found asks `GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=pi_…`
 * for the invoice its PaymentIntent paid (src/core/refunds/refund-sale-lookup.ts).
 *
 * No network here: a local node:http server stands in for api.stripe.com (STRIPE_API_BASE). It
 * answers with Stripe's list envelope (`object: 'list'`, `data`, `has_more`, `url`) around the
 * published `invoice_payment` object (../providers/fixtures/published/stripe/invoice-payment.json,
 * stripe/openapi fixtures3.json, see SOURCES.md there) with this test's ids, `status: paid` and
 * `payment: {type: payment_intent, payment_intent}` laid over it. Errors carry Stripe's error
 * envelope (`error.type`, `error.message`). The invoice, refund and event envelope are the published
 * ones too, overlaid as in stripe-published-events.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { published } from '../providers/fixtures/published.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { stripeKit } from './kits/stripe-kit.ts';
import { basilEvent, keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

type Json = Record<string, any>;
const API_KEY = 'rk_live_invoice_payments_lookup_5e7d';

/** What the stand-in answers, per invoice id: an error status, or the invoice's payments. */
type Answer = { status: number } | { payments: Json[] };
const script = new Map<string, Answer[]>();
/** Invoice payments Stripe knows: the answer when no script says otherwise, by invoice or by PaymentIntent. */
const known: Json[] = [];
const seen: Array<{
  method?: string;
  path: string;
  invoice: string | null;
  paymentIntent: string | null;
  authorization?: string;
}> = [];
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const invoice = url.searchParams.get('invoice');
  const paymentIntent = url.searchParams.get('payment[payment_intent]');
  seen.push({
    method: req.method,
    path: url.pathname,
    invoice,
    paymentIntent,
    authorization: req.headers.authorization,
  });
  res.setHeader('content-type', 'application/json');
  const answer: Answer = (invoice ? script.get(invoice)?.shift() : undefined) ?? {
    payments: known.filter((p) =>
      invoice ? p.invoice === invoice : p.payment.payment_intent === paymentIntent && paymentIntent !== null,
    ),
  };
  if ('status' in answer) {
    res.statusCode = answer.status;
    const type = answer.status >= 500 ? 'api_error' : 'invalid_request_error';
    res.end(JSON.stringify({ error: { type, message: `stand-in: ${answer.status}` } }));
    return;
  }
  res.end(JSON.stringify({ object: 'list', data: answer.payments, has_more: false, url: '/v1/invoice_payments' }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const w = useWebhookHarness(stripeKit, {
  DATA_ENCRYPTION_KEYS: generateSealingKey('test1'),
  STRIPE_API_BASE: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  LOG_LEVEL: 'warn',
});

const event = basilEvent;

/** A paid basil invoice (no PaymentIntent anywhere), as in stripe-published-events.ts. */
function basilInvoicePaid(ref: string, keys: ReturnType<typeof keysOf>, amountPaid: number) {
  return event('invoice.paid', {
    ...published('stripe', 'invoice'),
    id: `in_${ref}`,
    status: 'paid',
    billing_reason: 'subscription_create',
    amount_due: amountPaid,
    amount_paid: amountPaid,
    amount_remaining: 0,
    total: amountPaid,
    total_taxes: [],
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: {
        metadata: {
          tracker_click_id: keys.clickId,
          tracker_customer_key: keys.customerKey,
          program_id: String(keys.programId),
        },
        subscription: `sub_${ref}`,
      },
    },
  });
}
/** The published invoice_payment of invoice `in_<ref>`, by `pi_<ref>` unless `pi` says otherwise. */
const invoicePayment = (ref: string, status = 'paid', pi = `pi_${ref}`) =>
  published('stripe', 'invoice-payment', {
    id: `inpay_${pi}`,
    invoice: `in_${ref}`,
    status,
    amount_paid: status === 'paid' ? 10000 : null,
    currency: 'usd',
    livemode: true,
    payment: { type: 'payment_intent', payment_intent: pi },
  });
const refundUpdated = (ref: string, amount: number) =>
  event(
    'refund.updated',
    published('stripe', 'refund', {
      id: `re_${ref}`,
      amount,
      payment_intent: `pi_${ref}`,
      charge: `ch_${ref}`,
      status: 'succeeded',
    }),
  );

async function deliver(programId: number, body: Json, status = 'processed') {
  const res = await w.send(programId, body);
  expect(res.status).toBe(200);
  return w.waitForInbox(programId, res.body.id, status);
}

async function setup({ key = true } = {}) {
  const f = await w.newProgram();
  if (key) await w.h.admin('PATCH', `/programs/${f.programId}/providers/stripe`, { api_key: API_KEY });
  return { f, keys: keysOf(f, await w.newCustomer(f)) };
}

/** The program's only parked refund, once it says `status`. */
async function parkedRow(programId: number, status: string) {
  let row: Json | undefined;
  await waitFor(async () => {
    row = (await w.list(programId, 'parked-refunds'))[0];
    return row?.status === status;
  });
  return row!;
}

/** Calls asking for the invoice's payments, and for the PaymentIntent's. */
const callsFor = (ref: string) => seen.filter((s) => s.invoice === `in_${ref}`);
const refundCallsFor = (ref: string) => seen.filter((s) => s.paymentIntent === `pi_${ref}`);

beforeEach(() => {
  script.clear();
});

describe('stripe basil invoices: the PaymentIntent is looked up with the connection’s API key', () => {
  test('invoice.paid alone: Stripe is asked with the key and the invoice id; a later refund naming the PaymentIntent applies', async () => {
    const { f, keys } = await setup();
    const ref = newRef('l');
    // A canceled attempt before the paid one: only the paid PaymentIntent is linked.
    script.set(`in_${ref}`, [{ payments: [invoicePayment(ref, 'canceled', `pi_${ref}x`), invoicePayment(ref)] }]);
    const sale = await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    expect(sale.outcome).toEqual([expect.objectContaining({ kind: 'attributed' })]);
    expect(callsFor(ref)).toEqual([
      {
        method: 'GET',
        path: '/v1/invoice_payments',
        invoice: `in_${ref}`,
        paymentIntent: null,
        authorization: `Bearer ${API_KEY}`,
      },
    ]);

    const refund = await deliver(f.programId, refundUpdated(ref, 4000));
    expect(refund.outcome).toEqual([
      expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 400 }),
    ]);
    expect(await w.sale(f.programId, `in_${ref}`)).toMatchObject({ refunded_cents: 4000 });
    // The canceled attempt's PaymentIntent names nothing.
    const other = await deliver(f.programId, refundUpdated(`${ref}x`, 1000));
    expect(other.outcome).toEqual([expect.objectContaining({ kind: 'parked' })]);
    // A redelivered invoice.paid finds the sale linked: Stripe is not asked again.
    await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    expect(callsFor(ref)).toHaveLength(1);
    expect(JSON.stringify(w.h.logs)).not.toContain(API_KEY);
  });

  test('the refund first: parked, then applied once the sale is recorded and its PaymentIntent looked up', async () => {
    const { f, keys } = await setup();
    const ref = newRef('l');
    const parked = await deliver(f.programId, refundUpdated(ref, 10000));
    expect(parked.outcome).toEqual([expect.objectContaining({ kind: 'parked', transactionId: `pi_${ref}` })]);
    script.set(`in_${ref}`, [{ payments: [invoicePayment(ref)] }]);
    await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    expect(await parkedRow(f.programId, 'applied')).toMatchObject({
      outcome: expect.objectContaining({ kind: 'applied', status: 'reversed', deductionCents: 1000 }),
    });
    expect((await w.list(f.programId, 'refunds')).map((r) => r.deduction_cents)).toEqual([1000]);
    expect(await w.sale(f.programId, `in_${ref}`)).toMatchObject({ refunded_cents: 10000 });
  });

  test('without an API key nothing is asked: the refund waits for invoice_payment.paid, as before', async () => {
    const { f, keys } = await setup({ key: false });
    const ref = newRef('l');
    script.set(`in_${ref}`, [{ payments: [invoicePayment(ref)] }]);
    await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    const refund = await deliver(f.programId, refundUpdated(ref, 5000));
    expect(refund.outcome).toEqual([expect.objectContaining({ kind: 'parked' })]);
    expect(callsFor(ref)).toEqual([]);
    const link = await deliver(f.programId, event('invoice_payment.paid', invoicePayment(ref)));
    expect(link.outcome).toEqual([{ kind: 'linked', alias: `pi_${ref}`, transactionId: `in_${ref}` }]);
    expect(await parkedRow(f.programId, 'applied')).toMatchObject({
      outcome: expect.objectContaining({ kind: 'applied', deductionCents: 500 }),
    });
  });

  test('a 500 is retried: the next attempt links the sale, which is recorded once', async () => {
    const { f, keys } = await setup();
    const ref = newRef('l');
    script.set(`in_${ref}`, [{ status: 500 }, { payments: [invoicePayment(ref)] }]);
    const row = await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    expect(row.attempts).toBe(2);
    expect(row.outcome).toEqual([expect.objectContaining({ kind: 'duplicate' })]);
    expect(callsFor(ref)).toHaveLength(2);
    expect((await w.list(f.programId, 'sales')).filter((s) => s.transaction_id === `in_${ref}`)).toHaveLength(1);
    const refund = await deliver(f.programId, refundUpdated(ref, 10000));
    expect(refund.outcome).toEqual([expect.objectContaining({ kind: 'applied', deductionCents: 1000 })]);
  });

  test('a 403 leaves the sale unlinked with a warning naming the scope, asked once', async () => {
    const { f, keys } = await setup();
    const ref = newRef('l');
    script.set(`in_${ref}`, [{ status: 403 }, { payments: [invoicePayment(ref)] }]);
    const row = await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    expect(row.attempts).toBe(1);
    expect(row.outcome).toEqual([expect.objectContaining({ kind: 'attributed' })]);
    // Retries would come within a few hundred milliseconds (WEBHOOK_RETRY_BASE_MS 50).
    await new Promise((r) => setTimeout(r, 500));
    expect(callsFor(ref)).toHaveLength(1);
    expect(w.h.logs.filter((l) => l.invoiceId === `in_${ref}`)).toEqual([
      expect.objectContaining({ level: 40, status: 403, msg: expect.stringMatching(/Invoices: Read/) }),
    ]);
    const refund = await deliver(f.programId, refundUpdated(ref, 10000));
    expect(refund.outcome).toEqual([expect.objectContaining({ kind: 'parked' })]);
    expect(JSON.stringify(w.h.logs)).not.toContain(API_KEY);
  });

  test('a sale recorded before the key was set: its refund asks Stripe by the PaymentIntent, links and applies', async () => {
    const { f, keys } = await setup({ key: false });
    const ref = newRef('r');
    known.push(invoicePayment(ref));
    await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    await w.h.admin('PATCH', `/programs/${f.programId}/providers/stripe`, { api_key: API_KEY });
    const refund = await deliver(f.programId, refundUpdated(ref, 2000));
    expect(refund.outcome).toEqual([expect.objectContaining({ kind: 'applied', deductionCents: 200 })]);
    expect(refundCallsFor(ref)).toEqual([expect.objectContaining({ authorization: `Bearer ${API_KEY}` })]);
    expect(callsFor(ref)).toEqual([]);
    expect(await w.list(f.programId, 'parked-refunds')).toEqual([]);
  });

  test('a refund of an invoice nobody referred is finished as not_found, not parked', async () => {
    const { f, keys } = await setup();
    const ref = newRef('r');
    known.push(invoicePayment(ref));
    const unreferred: Json = basilInvoicePaid(ref, keys, 10000);
    unreferred.data.object.parent.subscription_details.metadata = {};
    await deliver(f.programId, unreferred, 'ignored');
    const refund = await deliver(f.programId, refundUpdated(ref, 10000), 'ignored');
    expect(refund.outcome).toEqual([expect.objectContaining({ kind: 'error', code: 'not_found' })]);
    expect(await w.list(f.programId, 'parked-refunds')).toEqual([]);
    // The invoice recorded no sale: its payments were never asked for; the refund asked once.
    expect(callsFor(ref)).toEqual([]);
    expect(refundCallsFor(ref)).toHaveLength(1);
  });

  test('the refund first, linked by its own lookup: the sale applies it at once, without asking again', async () => {
    const { f, keys } = await setup();
    const ref = newRef('r');
    known.push(invoicePayment(ref));
    const parked = await deliver(f.programId, refundUpdated(ref, 5000));
    expect(parked.outcome).toEqual([expect.objectContaining({ kind: 'parked' })]);
    const sale = await deliver(f.programId, basilInvoicePaid(ref, keys, 10000));
    expect(sale.outcome).toEqual([expect.objectContaining({ kind: 'attributed' })]);
    expect((await w.list(f.programId, 'parked-refunds'))[0]).toMatchObject({ status: 'applied' });
    expect(callsFor(ref)).toEqual([]);
    expect(refundCallsFor(ref)).toHaveLength(1);
  });
});
