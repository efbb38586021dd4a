/**
 * Property-based fuzzing (fast-check) of every public endpoint's body and headers against a real
 * `serve` process: click, lead (server and browser mode), sale, refund, test, status, the three
 * providers' webhooks and the admin API. Properties, per request:
 * - never a 5xx (no 500, no crash: the process is still up and healthy at the end);
 * - every 4xx is a JSON error envelope with a string `error.code`;
 * - a 4xx changes nothing: a fingerprint of every table is the same before and after.
 * Valid requests are generated too (they may change state); after a 2xx the background work it
 * started (webhook processing, notifications) is awaited before the next fingerprint.
 * Every body generator also sends hostile values anywhere in an otherwise valid body: NUL, lone
 * surrogates, 10 000-deep nesting and integers of 2^63. Validly signed webhooks of every provider
 * carry them too: such an event is stored (never a retried or failed job) or answered 4xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signStripe } from '../providers/fixtures/stripe.ts';
import { signedStripeCheckout } from '../helpers/load-fixture.ts';
import { adminCall } from '../helpers/load-fixture.ts';
import { PROVIDER_KITS } from '../webhooks/provider-kits.ts';
import { createFaultEnv, pendingWebhooks, send, waitFor, type FaultEnv } from './fault-env.ts';

let env: FaultEnv;
beforeAll(async () => {
  env = await createFaultEnv({ roles: ['serve'], customers: 50, partners: 3 });
  const r = await send(env.http.url, '/api/v1/track/sale', {
    body: { transaction_id: 'fz-base', amount_cents: 100_000, customer_key: env.fixture.customerKey(0) },
    headers: { authorization: `Bearer ${env.fixture.liveKey}` },
  });
  expect(r.status).toBe(200);
  for (const kit of Object.values(PROVIDER_KITS)) {
    if (kit.provider === 'stripe') continue; // the fixture's own Stripe secret stays
    await adminCall(
      env.http.url,
      env.adminToken,
      'PUT',
      `/programs/${env.fixture.programId}/providers/${kit.provider}`,
      { signing_secret: kit.secret },
    );
  }
});
afterAll(async () => {
  await env?.close();
});

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const TABLES = [
  'program',
  'partner',
  'partner_balance',
  'balance_entry',
  'notification',
  'click',
  'customer',
  'api_key',
  'provider_connection',
  'sale',
  'platform_fee',
  'commission',
  'refund',
  'test_event',
  'webhook_event',
  'payout',
];

/** One hash per table over all its rows: any insert, update or delete changes it. */
async function fingerprint(): Promise<string> {
  const parts = TABLES.map(
    (t) => `select '${t}' as t, md5(coalesce(string_agg(to_jsonb(x)::text, '|' order by x.id), '')) as h from ${t} x`,
  );
  const { rows } = await env.db.pool.query<{ t: string; h: string }>(parts.join(' union all '));
  return rows.map((r) => `${r.t}:${r.h}`).join(',');
}

async function quiet(): Promise<void> {
  await waitFor('background work to settle', 20_000, async () => {
    if ((await pendingWebhooks(env.db)) > 0) return false;
    const {
      rows: [n],
    } = await env.db.pool.query(`select count(*)::int as n from notification where delivered_at is null`);
    return n.n === 0;
  });
}

type Req = { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array };
const seen = { total: 0, byStatus: new Map<number, number>() };

/** Sends one fuzzed request and checks the three properties. */
async function check(req: Req): Promise<void> {
  const before = await fingerprint();
  const init: RequestInit = {
    method: req.method,
    headers: req.headers,
    body: req.method === 'GET' ? undefined : (req.body as RequestInit['body']),
    signal: AbortSignal.timeout(20_000),
  };
  let status: number;
  let text: string;
  try {
    const res = await fetch(`${env.http.url}${req.path}`, init);
    status = res.status;
    text = await res.text();
  } catch (err) {
    // The client refused to build this request (e.g. a header value it cannot send): not a server property.
    if (err instanceof TypeError && !String((err as { cause?: unknown }).cause ?? '').includes('ECONN')) return;
    throw new Error(
      `request failed at the network level (server crash?): ${req.method} ${req.path}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  seen.total++;
  seen.byStatus.set(status, (seen.byStatus.get(status) ?? 0) + 1);
  expect(status, `${req.method} ${req.path} → ${status} ${text.slice(0, 300)}`).toBeLessThan(500);
  if (status >= 400) {
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* asserted below */
    }
    expect(typeof body?.error?.code, `${req.method} ${req.path} → ${status} ${text.slice(0, 300)}`).toBe('string');
    expect(
      await fingerprint(),
      `a ${status} (${body?.error?.code}) changed the database: ${req.method} ${req.path} ${String(req.body).slice(0, 200)}`,
    ).toBe(before);
  } else {
    await quiet();
  }
}

// ---------- generators ----------

const printable = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'APPLICATION/JSON',
    '',
  ),
  printable,
);

/** A valid body with a few fields replaced by arbitrary JSON, dropped, or added. */
function mutated(base: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = [...Object.keys(base), 'extra', '__proto__', 'constructor', ''];
  return fc
    .array(fc.tuple(fc.constantFrom(...keys), fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined })), {
      minLength: 1,
      maxLength: 4,
    })
    .map((edits) => {
      const entries = new Map(Object.entries(base));
      for (const [k, v] of edits) {
        if (v === undefined) entries.delete(k);
        else entries.set(k, v);
      }
      return JSON.stringify(Object.fromEntries(entries));
    });
}

/** Values that broke the service before (issue: hostile traffic), as raw JSON text. */
const DEEP = 10_000;
const HOSTILE_RAW = [
  JSON.stringify('\u0000'),
  JSON.stringify('a\u0000b'),
  JSON.stringify('\ud800'),
  JSON.stringify('x\udfffy'),
  JSON.stringify('\udc00\ud800'),
  '9223372036854775808',
  '-9223372036854775808',
  '9223372036854775807',
  '18446744073709551616',
  `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
  `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`,
  `{"\u0000":1}`,
  `{"\ud800":"x"}`,
  JSON.stringify('x'.repeat(300)),
];
const PLACEHOLDER = '"__hostile_value__"';

/** Every path to a value in `v` (objects and arrays), at most `max` of them. */
function pathsOf(
  v: unknown,
  prefix: Array<string | number> = [],
  out: Array<Array<string | number>> = [],
): Array<Array<string | number>> {
  if (out.length > 200) return out;
  if (v && typeof v === 'object') {
    for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      out.push([...prefix, k]);
      pathsOf(child, [...prefix, k], out);
    }
  }
  return out;
}

/** `base` with the value at one path (or a new key there) replaced by a hostile raw value. */
function hostileIn(base: Record<string, unknown>): fc.Arbitrary<string> {
  return fc
    .record({ at: fc.nat(), raw: fc.constantFrom(...HOSTILE_RAW), asKey: fc.boolean() })
    .map(({ at, raw, asKey }) => {
      const copy = structuredClone(base);
      const paths = pathsOf(copy);
      const path = paths.length ? paths[at % paths.length]! : [];
      let holder: any = copy;
      for (const k of path.slice(0, -1)) holder = holder[k];
      const last = path.at(-1) ?? 'extra';
      if (asKey && holder && typeof holder === 'object' && !Array.isArray(holder))
        holder[`k\u0000${String(last)}`] = '__hostile_value__';
      else holder[last] = '__hostile_value__';
      return JSON.stringify(copy).replace(PLACEHOLDER, raw);
    });
}

/** Any body: mostly near-valid, sometimes valid, random JSON, random text, raw bytes or empty. */
function bodyFor(valid: () => Record<string, unknown>): fc.Arbitrary<string | Uint8Array> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(null).chain(() => mutated(valid())) },
    { weight: 3, arbitrary: fc.constant(null).chain(() => hostileIn(valid())) },
    { weight: 1, arbitrary: fc.constant(null).map(() => JSON.stringify(valid())) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', '[]', 'null', '{"a":', '\uFEFF{}', '{"transaction_id":"x"}'.repeat(3)),
    },
  );
}

const f = () => env.fixture;
const auth = fc.oneof(
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
const withAuth = (a: string | null, extra: Record<string, string> = {}) =>
  a === null ? extra : { authorization: a, ...extra };
const idLike = fc.oneof(
  fc.constantFrom('1', '0', '-1', '999999', '1.5', 'abc', '%20', '9007199254740993'),
  fc.integer({ min: 1, max: 5 }).map(String),
);

const validSale = () => ({
  transaction_id: `fz-${Math.random().toString(36).slice(2)}`,
  amount_cents: 4_900,
  customer_key: f().customerKey(1),
  currency: 'USD',
  sale_type: 'payment',
  tax_cents: 100,
  occurred_at: new Date().toISOString(),
  provider: 'stripe',
});
const validRefund = () => ({
  transaction_id: 'fz-base',
  refund_amount_cents: 1,
  refund_id: `fzr-${Math.random().toString(36).slice(2)}`,
  reason: 'refund',
  refund_reason: 'fuzz',
});
const validClick = () => ({
  affiliate_url: `https://shop.example/?aff=${f().partnerCodes[0]}`,
  page_url: 'https://shop.example/',
  referrer_url: 'https://ref.example/',
  visitor_id: 'v1',
});
const validLead = () => ({
  customer_key: `fz-lead-${Math.random().toString(36).slice(2)}`,
  click_id: f().clickId(2),
  email: 'a@b.example',
  event_name: 'signup',
});
const validBrowserLead = () => ({
  program_id: f().programId,
  customer_key: `fz-b-${Math.random().toString(36).slice(2)}`,
  click_id: f().clickId(3),
});
const validTest = () => ({ program_id: f().programId, data: { a: 1 } });

const jsonPost = (path: string, valid: () => Record<string, unknown>, headers: fc.Arbitrary<Record<string, string>>) =>
  fc.record({ body: bodyFor(valid), ct: contentType, headers }).map(({ body, ct, headers: h }): Req => ({
    method: 'POST',
    path,
    headers: { ...(ct ? { 'content-type': ct } : {}), ...h },
    body,
  }));

const run = (arb: fc.Arbitrary<Req>) => fc.assert(fc.asyncProperty(arb, check), { numRuns: RUNS, endOnFailure: true });

test('POST /api/v1/track/sale', () =>
  run(
    jsonPost(
      '/api/v1/track/sale',
      validSale,
      fc.option(auth, { nil: null }).map((a) => withAuth(a)),
    ),
  ));
test('POST /api/v1/track/refund', () =>
  run(
    jsonPost(
      '/api/v1/track/refund',
      validRefund,
      fc.option(auth, { nil: null }).map((a) => withAuth(a)),
    ),
  ));
test('POST /api/v1/track/click', () =>
  run(
    jsonPost(
      '/api/v1/track/click',
      validClick,
      fc.option(printable, { nil: null }).map((o): Record<string, string> => (o === null ? {} : { origin: o })),
    ),
  ));
test('POST /api/v1/track/lead (server mode)', () =>
  run(
    jsonPost(
      '/api/v1/track/lead',
      validLead,
      auth.map((a) => withAuth(a)),
    ),
  ));
test('POST /api/v1/track/browser-lead (no key)', () =>
  run(
    jsonPost(
      '/api/v1/track/browser-lead',
      validBrowserLead,
      fc
        .constantFrom('http://localhost:3000', 'https://evil.example', 'null', '', 'not a url')
        .map((origin): Record<string, string> => (origin ? { origin } : {})),
    ),
  ));
test('POST /api/v1/track/test', () =>
  run(
    jsonPost(
      '/api/v1/track/test',
      validTest,
      fc
        .option(auth, { nil: null })
        .chain((a) =>
          fc
            .constantFrom('http://localhost:3000', 'https://evil.example', '')
            .map((origin) => withAuth(a, origin ? { origin } : {})),
        ),
    ),
  ));
test('GET /api/v1/cli/status', () =>
  run(
    fc
      .record({
        a: fc.option(auth, { nil: null }),
        extra: fc.dictionary(fc.stringMatching(/^x-[a-z]{1,10}$/), printable, { maxKeys: 3 }),
      })
      .map(({ a, extra }): Req => ({ method: 'GET', path: '/api/v1/cli/status', headers: withAuth(a, extra) })),
  ));

test('POST /api/v1/webhooks/:provider/:programId', () => {
  const stripeBody = () =>
    JSON.parse(
      signedStripeCheckout(f(), {
        eventId: `evt_fz${Math.random().toString(36).slice(2)}`,
        paymentIntent: `pi_fz${Math.random().toString(36).slice(2)}`,
        amountCents: 1_000,
        customerKey: f().customerKey(4),
      }).body,
    );
  const arb = fc
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
  return run(arb);
});

test('validly signed webhooks of every provider with hostile content: stored (never a retried job) or 4xx', async () => {
  const kits = Object.values(PROVIDER_KITS);
  expect(kits.map((k) => k.provider).sort()).toEqual(['creem', 'dodo', 'lemonsqueezy', 'paddle', 'polar', 'stripe']);
  const secretOf = (provider: string) =>
    provider === 'stripe' ? f().stripeSecret : PROVIDER_KITS[provider as keyof typeof PROVIDER_KITS].secret;
  const arb = fc
    .record({
      kit: fc.constantFrom(...kits),
      n: fc.nat(),
      kind: fc.constantFrom('payment', 'payment', 'refund', 'unhandled'),
    })
    // Refunds name payments never recorded: parked at the first attempt, never retried or failed.
    .chain(({ kit, n, kind }) => {
      const ref = `fzh${n}${Math.random().toString(36).slice(2, 8)}`;
      const amountCents = 1_000 + (n % 1_000);
      const event =
        kind === 'payment'
          ? kit.payment({
              ref,
              amountCents,
              keys: { customerKey: f().customerKey(n % f().customers), programId: f().programId },
            }).event
          : kind === 'refund'
            ? kit.refund({
                ref,
                saleAmountCents: amountCents,
                refundId: `re_${ref}`,
                amountCents,
                totalCents: amountCents,
              })
            : kit.unhandled();
      return hostileIn(event).map((body) => ({ kit, body }));
    })
    .map(({ kit, body }): Req & { signed: true } => ({
      method: 'POST',
      path: `/api/v1/webhooks/${kit.provider}/${f().programId}`,
      signed: true,
      body,
      headers: { 'content-type': 'application/json', ...kit.sign(body, new Date(), secretOf(kit.provider)) },
    }));
  const outcome = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(arb, async (req) => {
      const res = await fetch(`${env.http.url}${req.path}`, {
        method: 'POST',
        headers: req.headers,
        body: req.body as string,
        signal: AbortSignal.timeout(20_000),
      });
      const text = await res.text();
      seen.total++;
      seen.byStatus.set(res.status, (seen.byStatus.get(res.status) ?? 0) + 1);
      expect(res.status, `${req.path} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
      const error = res.status < 300 ? null : JSON.parse(text)?.error;
      const label = `${req.path.split('/')[4]} ${res.status}${error ? ` ${error.code}${error.details?.reason ? `/${error.details.reason}` : ''}` : ''}`;
      outcome.set(label, (outcome.get(label) ?? 0) + 1);
      if (res.status < 300) {
        const body = JSON.parse(text);
        // Acknowledged means stored in the inbox...
        const { rows } = await env.db.pool.query(`select status, attempts from webhook_event where id = $1`, [body.id]);
        expect(rows, `${req.path} acknowledged ${text} but no inbox row`).toHaveLength(1);
        await quiet();
        // ...and processed or ignored on its first attempt: never failed, never retried.
        const {
          rows: [after],
        } = await env.db.pool.query(`select status, attempts, error from webhook_event where id = $1`, [body.id]);
        expect(after.status, `${req.path}: ${JSON.stringify(after)}`).not.toBe('failed');
        expect(after.attempts, `${req.path}: ${JSON.stringify(after)}`).toBeLessThanOrEqual(1);
      }
    }),
    { numRuns: RUNS, endOnFailure: true },
  );
  console.log(`signed hostile webhooks: ${JSON.stringify(Object.fromEntries([...outcome].sort()))}`);
  // Most are stored: hostile bytes in a signed payload are made storable, not refused.
  expect([...outcome].filter(([k]) => k.endsWith(' 200')).reduce((a, [, n]) => a + n, 0)).toBeGreaterThan(RUNS / 2);
});

test('admin API', () => {
  const token = fc.oneof(
    { weight: 3, arbitrary: fc.constant(null).map(() => `Bearer ${env.adminToken}`) },
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
  const arb = fc
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
  return run(arb);
});

test('unknown routes and methods', () =>
  run(
    fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        path: fc.stringMatching(/^\/[a-z0-9/._-]{0,40}$/),
        body: fc.string({ maxLength: 50 }),
      })
      .map(({ method, path, body }): Req => ({
        method,
        path: path.startsWith('/api/v1/admin') ? `/x${path}` : path,
        headers: { 'content-type': 'application/json' },
        body,
      })),
  ));

test('after all of it the service is alive and healthy, and no job was ever retried', async () => {
  expect(env.http.child.exitCode).toBeNull();
  const attemptFailures = env.http
    .output()
    .split('\n')
    .filter((l) => l.includes('job attempt failed'));
  expect(attemptFailures).toEqual([]);
  // Any row failed or retried, with what it holds (the service keeps its last lines only). A row
  // the admin fuzz replayed (`{"id": 1}` with a valid token and program) ran again on purpose: it
  // carries `requeued_at`.
  const { rows: retried } = await env.db.pool.query(
    `select id, provider, event_type, status, attempts, error, outcome, normalised from webhook_event where status = 'failed' or (attempts > 1 and requeued_at is null)`,
  );
  expect(retried).toEqual([]);
  const r = await send(env.http.url, '/readyz');
  expect(r.status).toBe(200);
  expect(env.http.output()).not.toMatch(/uncaught|unhandled rejection|FATAL/i);
  console.log(
    `fuzz: ${seen.total} requests, statuses ${JSON.stringify(Object.fromEntries([...seen.byStatus].sort((a, b) => a[0] - b[0])))}`,
  );
});
