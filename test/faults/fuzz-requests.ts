/**
 * Request generators of the fuzz tests, per endpoint: valid bodies to mutate, keys good and bad,
 * Stripe-signed webhook deliveries and admin API calls.
 */
import fc from 'fast-check';
import { signStripe } from '../providers/fixtures/stripe.ts';
import { signedStripeCheckout } from '../helpers/load-fixture.ts';
import { bodyFor, contentType, printable } from './fuzz-arbitraries.ts';
import { target, type Req } from './fuzz-target.ts';

export const f = () => target().fixture;
export const auth = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null).map(() => `Bearer ${f().liveKey}`) },
  { weight: 1, arbitrary: fc.constant(null).map(() => `Bearer ${f().testKey}`) },
  fc.constantFrom(
    '',
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    'Bearer trk_live_not_a_real_key_000000000000',
    'bearer lowercase-scheme-000',
  ),
  printable.map((s) => `Bearer ${s}`),
  printable,
);
export const withAuth = (a: string | null, extra: Record<string, string> = {}) =>
  a === null ? extra : { authorization: a, ...extra };
const idLike = fc.oneof(
  fc.constantFrom('1', '0', '-1', '999999', '1.5', 'abc', '%20', '9007199254740993'),
  fc.integer({ min: 1, max: 5 }).map(String),
);

export const validSale = () => ({
  transaction_id: `fz-${Math.random().toString(36).slice(2)}`,
  amount_cents: 4_900,
  customer_key: f().customerKey(1),
  currency: 'USD',
  sale_type: 'payment',
  tax_cents: 100,
  occurred_at: new Date().toISOString(),
  provider: 'stripe',
});
export const validRefund = () => ({
  transaction_id: 'fz-base',
  refund_amount_cents: 1,
  refund_id: `fzr-${Math.random().toString(36).slice(2)}`,
  reason: 'refund',
  refund_reason: 'fuzz',
});
export const validClick = () => ({
  affiliate_url: `https://shop.example/?aff=${f().partnerCodes[0]}`,
  page_url: 'https://shop.example/',
  referrer_url: 'https://ref.example/',
  visitor_id: 'v1',
});
export const validLead = () => ({
  customer_key: `fz-lead-${Math.random().toString(36).slice(2)}`,
  click_id: f().clickId(2),
  email: 'a@b.example',
  event_name: 'signup',
});
export const validBrowserLead = () => ({
  program_id: f().programId,
  customer_key: `fz-b-${Math.random().toString(36).slice(2)}`,
  click_id: f().clickId(3),
});
export const validTest = () => ({ program_id: f().programId, data: { a: 1 } });

/** A POST of a (near-)valid JSON body for `path` under arbitrary content types and `headers`. */
export const jsonPost = (
  path: string,
  valid: () => Record<string, unknown>,
  headers: fc.Arbitrary<Record<string, string>>,
) =>
  fc.record({ body: bodyFor(valid), ct: contentType, headers }).map(({ body, ct, headers: h }): Req => ({
    method: 'POST',
    path,
    headers: { ...(ct ? { 'content-type': ct } : {}), ...h },
    body,
  }));

/** Webhook deliveries to any provider and program path, Stripe-signed validly, stale, foreign or not at all. */
export function webhookRequest(): fc.Arbitrary<Req> {
  const stripeBody = () =>
    JSON.parse(
      signedStripeCheckout(f(), {
        eventId: `evt_fz${Math.random().toString(36).slice(2)}`,
        paymentIntent: `pi_fz${Math.random().toString(36).slice(2)}`,
        amountCents: 1_000,
        customerKey: f().customerKey(4),
      }).body,
    );
  return fc
    .record({
      provider: fc.oneof(
        { weight: 4, arbitrary: fc.constant('stripe') },
        fc.constantFrom('paddle', 'lemonsqueezy', 'unknown', 'STRIPE', '..'),
      ),
      programId: fc.oneof({ weight: 4, arbitrary: fc.constant(null).map(() => String(f().programId)) }, idLike),
      body: bodyFor(stripeBody),
      ct: contentType,
      // A valid signature over this very body (so the inbox and normaliser see arbitrary signed
      // payloads), a stale or foreign one, or garbage.
      sig: fc.constantFrom('valid', 'other-secret', 'stale', 'garbage', 'missing'),
      garbage: printable,
    })
    .map(({ provider, programId, body, ct, sig, garbage }): Req => {
      const text = typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
      const now = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = ct ? { 'content-type': ct } : {};
      const value =
        sig === 'valid'
          ? signStripe(text, { timestamp: now, secret: f().stripeSecret })
          : sig === 'other-secret'
            ? signStripe(text, { timestamp: now, secret: 'whsec_someone_else_000000' })
            : sig === 'stale'
              ? signStripe(text, { timestamp: now - 3_600, secret: f().stripeSecret })
              : sig === 'garbage'
                ? garbage
                : null;
      if (value !== null) for (const h of ['stripe-signature', 'paddle-signature', 'x-signature']) headers[h] = value;
      return {
        method: 'POST',
        path: `/api/v1/webhooks/${provider}/${programId}`,
        headers,
        body: typeof body === 'string' ? text : body,
      };
    });
}

/** Admin API calls: routes with arbitrary ids, lists, providers, queries, bodies and tokens. */
export function adminRequest(): fc.Arbitrary<Req> {
  const token = fc.oneof(
    { weight: 3, arbitrary: fc.constant(null).map(() => `Bearer ${target().adminToken}`) },
    fc.constantFrom('', 'Bearer x', `Bearer ${'a'.repeat(40)}`),
    printable,
  );
  const routes: Array<[string, string, () => Record<string, unknown>]> = [
    ['POST', '/programs', () => ({ name: 'Fuzz', commission_rate_bps: 500, rate_limit_per_minute: 1_000_000 })],
    ['PATCH', '/programs/:id', () => ({ hold_period_days: 30 })],
    ['POST', '/programs/:id/keys', () => ({ mode: 'test' })],
    [
      'POST',
      '/programs/:id/partners',
      () => ({ code: `fz${Math.random().toString(36).slice(2, 10)}`, name: 'Fuzz partner' }),
    ],
    ['PUT', '/programs/:id/providers/:p', () => ({ signing_secret: 'whsec_fuzz_0123456789' })],
    ['POST', '/programs/:id/partners/:id/payouts', () => ({ currency: 'USD', amount_cents: 100 })],
    ['POST', '/programs/:id/payouts/:id/pay', () => ({})],
    ['POST', '/programs/:id/commissions/:id/pay', () => ({})],
    ['POST', '/programs/:id/commissions/:id/approve', () => ({})],
    ['POST', '/programs/:id/webhook-events/replay', () => ({ id: 1 })],
    ['GET', '/programs/:id/:list', () => ({})],
    ['GET', '/programs', () => ({})],
  ];
  return fc
    .record({
      route: fc.constantFrom(...routes),
      token,
      ids: fc.array(idLike, { minLength: 3, maxLength: 3 }),
      list: fc.constantFrom('sales', 'commissions', 'refunds', 'webhook-events', 'nope', 'partners', 'payouts'),
      provider: fc.constantFrom('stripe', 'paddle', 'lemonsqueezy', 'nope'),
      query: fc.constantFrom('', '?limit=2', '?limit=-1', '?offset=abc', '?limit=100000', '?status=pending'),
      body: fc.constant(null),
      ct: contentType,
    })
    .chain((r) => bodyFor(r.route[2]).map((body) => ({ ...r, body })))
    .map(({ route: [method, path], token: t, ids, list, provider, query, body, ct }): Req => {
      let i = 0;
      const p = path
        .replace(/:id/g, () => ids[i++]!)
        .replace(':list', list)
        .replace(':p', provider);
      return {
        method,
        path: `/api/v1/admin${p}${method === 'GET' ? query : ''}`,
        headers: { ...(ct ? { 'content-type': ct } : {}), ...(t ? { authorization: t } : {}) },
        body,
      };
    });
}
