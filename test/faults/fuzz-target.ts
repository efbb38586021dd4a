/**
 * The service the fuzz tests (fuzz.test.ts) run against: one `serve` process with a seeded program
 * connected to every metadata provider. And the three properties checked per request: never a 5xx,
 * every 4xx a JSON error envelope, a 4xx changes nothing (a fingerprint of every table).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import { adminCall } from '../helpers/load-fixture.ts';
import { PROVIDER_KITS } from '../webhooks/provider-kits.ts';
import { createFaultEnv, pendingWebhooks, send, waitFor, type FaultEnv } from './fault-env.ts';

let env: FaultEnv | undefined;

/** The running service of this test file (started by useFuzzTarget). */
export function target(): FaultEnv {
  if (!env) throw new Error('no fuzz target: call useFuzzTarget() in the test file');
  return env;
}

/** Starts the service before the file's tests and stops it after them. */
export function useFuzzTarget(): void {
  beforeAll(async () => {
    const e = await createFaultEnv({ roles: ['serve'], customers: 50, partners: 3 });
    env = e;
    const r = await send(e.http.url, '/api/v1/track/sale', {
      body: { transaction_id: 'fz-base', amount_cents: 100_000, customer_key: e.fixture.customerKey(0) },
      headers: { authorization: `Bearer ${e.fixture.liveKey}` },
    });
    expect(r.status).toBe(200);
    for (const kit of Object.values(PROVIDER_KITS)) {
      if (kit.provider === 'stripe') continue; // the fixture's own Stripe secret stays
      await adminCall(e.http.url, e.adminToken, 'PUT', `/programs/${e.fixture.programId}/providers/${kit.provider}`, {
        signing_secret: kit.secret,
      });
    }
  });
  afterAll(async () => {
    await env?.close();
  });
}

export const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
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
  const { rows } = await target().db.pool.query<{ t: string; h: string }>(parts.join(' union all '));
  return rows.map((r) => `${r.t}:${r.h}`).join(',');
}

/** Waits until the background work a 2xx started (webhook processing, notifications) is done. */
export async function quiet(): Promise<void> {
  const { db } = target();
  await waitFor('background work to settle', 20_000, async () => {
    if ((await pendingWebhooks(db)) > 0) return false;
    const {
      rows: [n],
    } = await db.pool.query(`select count(*)::int as n from notification where delivered_at is null`);
    return n.n === 0;
  });
}

export type Req = { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array };
/** Every status answered over the file, for the closing summary. */
export const seen = { total: 0, byStatus: new Map<number, number>() };

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
    const res = await fetch(`${target().http.url}${req.path}`, init);
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

/** Checks the properties on RUNS requests drawn from `arb`. */
export const run = (arb: fc.Arbitrary<Req>) =>
  fc.assert(fc.asyncProperty(arb, check), { numRuns: RUNS, endOnFailure: true });
