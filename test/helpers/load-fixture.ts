/**
 * Seeds a running service for load: a program with keys, partners and a Stripe connection through
 * the admin API (the real path), then many clicks and bound customers straight into PostgreSQL
 * (thousands of leads through the API would dominate the run time and measure nothing new).
 */
import type pg from 'pg';
import { checkoutSession, signStripe, stripeEvent } from '../providers/fixtures/stripe.ts';

export type LoadFixture = {
  programId: number;
  liveKey: string;
  testKey: string;
  partnerCodes: string[];
  /** Seeded customers are `customerKey(0..customers-1)`, each bound to its own click. */
  customers: number;
  customerKey(i: number): string;
  clickId(i: number): string;
  stripeSecret: string;
};

export type SeedOptions = {
  baseUrl: string;
  adminToken: string;
  pool: pg.Pool;
  partners?: number;
  customers?: number;
  rateLimitPerMinute?: number;
  commissionRateBps?: number;
  platformFeeBps?: number;
  /** Distinguishes several fixtures in one database (partner codes are unique service-wide). */
  tag?: string;
};

/** Calls the admin API; throws with the body on any non-2xx. */
export async function adminCall(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<any> {
  const res = await fetch(`${baseUrl}/api/v1/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`admin ${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export async function seedLoadFixture(o: SeedOptions): Promise<LoadFixture> {
  const tag = o.tag ?? 'l';
  const partners = o.partners ?? 50;
  const customers = o.customers ?? 5_000;
  const stripeSecret = `whsec_load_${tag}_0123456789abcdef`;
  const { program } = await adminCall(o.baseUrl, o.adminToken, 'POST', '/programs', {
    name: `Load ${tag}`,
    rate_limit_per_minute: o.rateLimitPerMinute ?? 1_000_000,
    commission_rate_bps: o.commissionRateBps ?? 1_000,
    platform_fee_bps: o.platformFeeBps ?? 200,
    hold_period_days: 30,
  });
  const live = await adminCall(o.baseUrl, o.adminToken, 'POST', `/programs/${program.id}/keys`, { mode: 'live' });
  const test = await adminCall(o.baseUrl, o.adminToken, 'POST', `/programs/${program.id}/keys`, { mode: 'test' });
  await adminCall(o.baseUrl, o.adminToken, 'PUT', `/programs/${program.id}/providers/stripe`, {
    signing_secret: stripeSecret,
  });
  const partnerCodes: string[] = [];
  for (let start = 0; start < partners; start += 10) {
    const batch = Array.from({ length: Math.min(10, partners - start) }, (_, k) => `${tag}-p${start + k}`);
    await Promise.all(
      batch.map((code) =>
        adminCall(o.baseUrl, o.adminToken, 'POST', `/programs/${program.id}/partners`, {
          code,
          name: `Partner ${code}`,
        }),
      ),
    );
    partnerCodes.push(...batch);
  }
  const clickId = (i: number) => `${tag}-clk-${program.id}-${i}`;
  const customerKey = (i: number) => `${tag}-cust-${i}`;
  // Clicks a few days old (inside the default 60-day window), spread over the partners.
  await o.pool.query(
    `insert into click (id, program_id, partner_id, affiliate_url, clicked_at, created_at)
     select $2 || g, $1, p.id, 'https://shop.example/?aff=' || p.code, now() - interval '3 days', now() - interval '3 days'
       from generate_series(0, $3 - 1) g
       join lateral (select id, code from partner where program_id = $1 order by id offset (g % $4) limit 1) p on true`,
    [program.id, `${tag}-clk-${program.id}-`, customers, partners],
  );
  await o.pool.query(
    `insert into customer (program_id, customer_key, click_id, partner_id, event_name, created_at)
     select $1, $2 || g, c.id, c.partner_id, 'signup', now() - interval '3 days'
       from generate_series(0, $3 - 1) g join click c on c.id = $4 || g`,
    [program.id, `${tag}-cust-`, customers, `${tag}-clk-${program.id}-`],
  );
  await o.pool.query('analyze click; analyze customer; analyze partner');
  return {
    programId: program.id,
    liveKey: live.key,
    testKey: test.key,
    partnerCodes,
    customers,
    customerKey,
    clickId,
    stripeSecret,
  };
}

/** Round-half-up commission, computed independently of the service (integer maths). */
export function expectedCommission(amountCents: number, rateBps: number): number {
  return Math.floor((2 * amountCents * rateBps + 10_000) / 20_000);
}

/**
 * A signed Stripe `checkout.session.completed` delivery (current timestamp, so the service's real
 * clock accepts it) for a one-off payment attributed through `tracker_customer_key`.
 */
export function signedStripeCheckout(
  f: Pick<LoadFixture, 'programId' | 'stripeSecret'>,
  input: {
    eventId: string;
    paymentIntent: string;
    amountCents: number;
    customerKey: string;
    nowSeconds?: number;
  },
): { body: string; headers: Record<string, string> } {
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const session = checkoutSession({
    id: `cs_${input.paymentIntent}`,
    payment_intent: input.paymentIntent,
    amount_total: input.amountCents,
    amount_subtotal: input.amountCents,
    // A tax-free checkout: the commission base (tax excluded by default) is then the whole amount.
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    created: now - 30,
    metadata: { tracker_customer_key: input.customerKey, program_id: String(f.programId) },
  });
  const body = JSON.stringify(
    stripeEvent('checkout.session.completed', session, { id: input.eventId, created: now - 1 }),
  );
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signStripe(body, { timestamp: now, secret: f.stripeSecret }),
    },
  };
}

/** A signed Stripe `refund.created` delivery for a payment intent. */
export function signedStripeRefund(
  f: Pick<LoadFixture, 'stripeSecret'>,
  input: {
    eventId: string;
    refundId: string;
    paymentIntent: string;
    amountCents: number;
    nowSeconds?: number;
  },
): { body: string; headers: Record<string, string> } {
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const refund = {
    id: input.refundId,
    object: 'refund',
    amount: input.amountCents,
    charge: `ch_${input.paymentIntent}`,
    created: now - 5,
    currency: 'usd',
    metadata: {},
    payment_intent: input.paymentIntent,
    reason: 'requested_by_customer',
    status: 'succeeded',
  };
  const body = JSON.stringify(stripeEvent('refund.created', refund, { id: input.eventId, created: now - 1 }));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signStripe(body, { timestamp: now, secret: f.stripeSecret }),
    },
  };
}
