/**
 * The Stripe invoice payments lookup (official SDK) against a local node:http server standing in
 * for api.stripe.com (no network here): what it reads from the published `invoice_payment` shape
 * (fixtures/published/stripe/invoice-payment.json, see SOURCES.md there, inside Stripe's list
 * envelope), and how each failure is classified (retryable or refused).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, test } from 'vitest';
import {
  createStripeInvoicePaymentLookup,
  createStripePaidInvoiceLookup,
} from '../../src/providers/stripe/invoice-payments.ts';
import { RetryableError } from '../../src/core/shared/errors.ts';
import { published } from './fixtures/published.ts';

const KEY = 'rk_live_lookup_unit_secret_1234';
const requests: Array<{ method?: string; url?: string; authorization?: string }> = [];
let respond: (res: ServerResponse) => void = (res) => res.end();
const server = createServer((req, res) => {
  requests.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
  res.setHeader('content-type', 'application/json');
  respond(res);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const lookup = createStripeInvoicePaymentLookup({
  apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  timeoutMs: 300,
});
const ask = () => lookup({ provider: 'stripe', invoiceId: 'in_1Unit' }, KEY);
const reverse = createStripePaidInvoiceLookup({
  apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  timeoutMs: 300,
});
const list = (data: unknown[]) =>
  JSON.stringify({ object: 'list', data, has_more: false, url: '/v1/invoice_payments' });
const payment = (o: Record<string, unknown>) =>
  published('stripe', 'invoice-payment', { invoice: 'in_1Unit', status: 'paid', ...o });

test('the paid PaymentIntents of the invoice; other kinds, statuses and invoices are left out', async () => {
  respond = (res) =>
    res.end(
      list([
        payment({ id: 'inpay_1', payment: { type: 'payment_intent', payment_intent: 'pi_paid' } }),
        payment({ id: 'inpay_2', status: 'canceled', payment: { type: 'payment_intent', payment_intent: 'pi_x' } }),
        payment({ id: 'inpay_3', payment: { type: 'charge', charge: 'ch_legacy' } }),
        payment({ id: 'inpay_4', invoice: 'in_other', payment: { type: 'payment_intent', payment_intent: 'pi_o' } }),
        // An expanded PaymentIntent (a second, partial payment).
        payment({ id: 'inpay_5', payment: { type: 'payment_intent', payment_intent: { id: 'pi_second' } } }),
      ]),
    );
  expect(await ask()).toEqual({ kind: 'found', aliases: ['pi_paid', 'pi_second'] });
  const last = requests.at(-1)!;
  expect(last.method).toBe('GET');
  expect(new URL(last.url!, 'http://x').pathname).toBe('/v1/invoice_payments');
  expect(new URL(last.url!, 'http://x').searchParams.get('invoice')).toBe('in_1Unit');
  expect(last.authorization).toBe(`Bearer ${KEY}`);
  respond = (res) => res.end(list([]));
  expect(await ask()).toEqual({ kind: 'found', aliases: [] });
});

test('400, 401, 403 and 404 are refused; 429, 5xx and a timeout are retryable (asked once each), never naming the key', async () => {
  for (const status of [400, 401, 403, 404]) {
    respond = (res) => {
      res.statusCode = status;
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'stand-in' } }));
    };
    expect(await ask()).toEqual({ kind: 'refused', status });
  }
  const failures: Array<(res: ServerResponse) => void> = [
    (res) => {
      res.statusCode = 429;
      res.end(JSON.stringify({ error: { type: 'rate_limit_error', message: 'stand-in' } }));
    },
    (res) => {
      res.statusCode = 503;
      res.end(JSON.stringify({ error: { type: 'api_error', message: 'stand-in' } }));
    },
    () => {
      /* never answers: the 300 ms timeout */
    },
  ];
  for (const failure of failures) {
    respond = failure;
    const before = requests.length;
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).not.toContain(KEY);
    // No retry inside the SDK: the webhook job is retried instead.
    expect(requests.length - before).toBe(1);
  }
});

test('the other way: the invoices a PaymentIntent paid, asked by payment[type] and payment[payment_intent]', async () => {
  respond = (res) =>
    res.end(
      list([
        payment({ id: 'inpay_1', payment: { type: 'payment_intent', payment_intent: 'pi_unit' } }),
        payment({
          id: 'inpay_2',
          invoice: 'in_open',
          status: 'open',
          payment: { type: 'payment_intent', payment_intent: 'pi_unit' },
        }),
        payment({ id: 'inpay_3', invoice: 'in_else', payment: { type: 'payment_intent', payment_intent: 'pi_else' } }),
      ]),
    );
  expect(await reverse({ provider: 'stripe', paymentIntentId: 'pi_unit' }, KEY)).toEqual({
    kind: 'found',
    transactionIds: ['in_1Unit'],
  });
  const params = new URL(requests.at(-1)!.url!, 'http://x').searchParams;
  expect(params.get('payment[type]')).toBe('payment_intent');
  expect(params.get('payment[payment_intent]')).toBe('pi_unit');
  expect(params.get('invoice')).toBeNull();
  respond = (res) => {
    res.statusCode = 403;
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'stand-in' } }));
  };
  expect(await reverse({ provider: 'stripe', paymentIntentId: 'pi_unit' }, KEY)).toEqual({
    kind: 'refused',
    status: 403,
  });
});
