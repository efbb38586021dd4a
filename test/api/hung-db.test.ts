/**
 * Production mode with a hung PostgreSQL: the service's database connections go through a proxy
 * that can be frozen (connections open, nothing answers, no error: a network partition). Each
 * route that needs the database answers within DB_QUERY_TIMEOUT_MS (docs/operations.md, Reliability: "Bounds
 * on a hung dependency"): a retryable 503, never a hang and never an acknowledgement without a
 * stored row; an export download under way is not cut. Embedded mode has no connection to hang:
 * the file runs in production mode only. The process-level twin is test/faults/pg-hung.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import pTimeout from 'p-timeout';
import pg from 'pg';
import {
  createHarness,
  createProgramFixture,
  bearer,
  clickAndLead,
  ADMIN_TOKEN,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { createFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { waitFor } from '../helpers/wait-for.ts';

const production = Boolean(process.env.REDIS_URL && process.env.DATABASE_URL);
const BOUND_MS = 1_000;
/** The bound's own margin for a shared, busy test machine. */
const SLACK_MS = 500;

describe.runIf(production)('a hung PostgreSQL holds no request', () => {
  let proxy: FreezableProxy;
  let h: Harness;
  let f: Fixture;
  let databaseUrl = '';
  beforeAll(async () => {
    proxy = await createFreezableProxy(process.env.DATABASE_URL!);
    h = await createHarness(
      { DB_QUERY_TIMEOUT_MS: String(BOUND_MS), JOB_WAIT_TIMEOUT_MS: '3000' },
      {
        databaseUrl: (created) => {
          // The test's own reads go to the server directly; the service's through the proxy.
          databaseUrl = created;
          const u = new URL(created);
          u.port = new URL(proxy.url).port;
          return u.toString();
        },
      },
    );
    f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await h.admin('PUT', `/programs/${f.programId}/providers/stripe`, { signing_secret: stripeKit.secret });
  });
  afterEach(() => proxy.thaw());
  afterAll(async () => {
    proxy?.thaw();
    await h?.close();
    await proxy?.close();
  });

  /** The request's answer and how long it took; a request still unanswered after 8 s fails the test. */
  const timed = async <T>(call: Promise<T>): Promise<[T, number]> => {
    const t = performance.now();
    const out = await pTimeout(call, { milliseconds: 8_000, message: 'no answer within 8 s' });
    return [out, performance.now() - t];
  };
  const expectRetryable503 = (r: { status: number; body: any; headers: Headers }) => {
    expect(r.status).toBe(503);
    expect(r.body).toEqual({
      error: { code: 'service_unavailable', message: expect.any(String), retry_after_seconds: expect.any(Number) },
    });
    expect(r.headers.get('retry-after')).toBe(String(r.body.error.retry_after_seconds));
  };
  const direct = async <R extends pg.QueryResultRow>(sql: string, values: unknown[]) => {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      return (await c.query<R>(sql, values)).rows;
    } finally {
      await c.end();
    }
  };

  test('/readyz answers 503 within 1 s while the database hangs, and 200 once it answers again', async () => {
    expect((await h.request('/readyz')).status).toBe(200);
    proxy.freeze();
    const [hung, ms] = await timed(h.request('/readyz'));
    expect(ms).toBeLessThan(1_000);
    expect(hung.status).toBe(503);
    expect(hung.body).toMatchObject({ status: 'unavailable', database: false, queue_ok: true });
    expect(hung.body.reasons).toContain('the database does not answer');
    proxy.thaw();
    await waitFor(async () => (await h.request('/readyz')).status === 200, 10_000);
  });

  test('a webhook whose inbox row cannot be stored in time answers 503; redelivered, it is stored and applied once', async () => {
    const customerKey = 'hung-db-hook-customer';
    await clickAndLead(h, f, customerKey);
    const deliver = (event: object) => {
      const raw = JSON.stringify(event);
      return h.request(`/api/v1/webhooks/stripe/${f.programId}`, { raw, headers: stripeKit.sign(raw, h.clock.now) });
    };
    // A first delivery loads the program's secrets: while the database hangs, only the inbox write is left.
    const warm = stripeKit.payment({
      ref: 'hung-db-warm',
      amountCents: 1_000,
      keys: { customerKey, programId: f.programId },
    });
    expect((await deliver(warm.event)).status).toBe(200);
    const { event, transactionId } = stripeKit.payment({
      ref: 'hung-db-hook',
      amountCents: 7_000,
      keys: { customerKey, programId: f.programId },
    });
    proxy.freeze();
    const [hung, ms] = await timed(deliver(event));
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
    expectRetryable503(hung);
    proxy.thaw();
    // The provider delivers it again: stored now (or already, by the statement the server ran late).
    const again = await waitFor(async () => {
      const r = await deliver(event);
      return r.status === 503 ? false : r;
    }, 10_000);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ received: true });
    const sales = async () =>
      (await h.admin('GET', `/programs/${f.programId}/sales?limit=500`)).sales.filter(
        (s: { transaction_id: string }) => s.transaction_id === transactionId,
      );
    await waitFor(async () => (await sales()).length === 1, 15_000);
    const rows = await direct<{ n: number }>(
      `select count(*)::int as n from webhook_event where program_id = $1 and payload->>'id' = $2`,
      [f.programId, event.id],
    );
    expect(rows[0]!.n).toBe(1);
  });

  test('a sale whose API key must be looked up answers 503 within the bound; retried, it is recorded once', async () => {
    const customerKey = 'hung-db-sale-customer';
    await clickAndLead(h, f, customerKey);
    // A key this process has not seen yet: the lookup goes to the database.
    const { key } = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    const body = { transaction_id: 'hung-db-sale-1', amount_cents: 9_900, customer_key: customerKey };
    const sale = () => h.request('/api/v1/track/sale', { body, headers: bearer(key) });
    proxy.freeze();
    const [hung, ms] = await timed(sale());
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
    expectRetryable503(hung);
    proxy.thaw();
    const retried = await waitFor(async () => {
      const r = await sale();
      return r.status === 503 ? false : r;
    }, 10_000);
    expect(retried.status).toBe(200);
    const recorded = (await h.admin('GET', `/programs/${f.programId}/sales?limit=500`)).sales.filter(
      (s: { transaction_id: string }) => s.transaction_id === body.transaction_id,
    );
    expect(recorded).toHaveLength(1);
  });

  test('an admin read answers 503 within the bound while the database hangs', async () => {
    proxy.freeze();
    const [hung, ms] = await timed(
      h.request(`/api/v1/admin/programs/${f.programId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    );
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
    expectRetryable503(hung);
    proxy.thaw();
    expect((await h.admin('GET', `/programs/${f.programId}`)).program.id).toBe(f.programId);
  });

  test('a rule preview (one long read) is not cut by the bound: a hang longer than it delays it, then 200', async () => {
    proxy.freeze();
    // Proposed rules in the body: the program's own are not read first, the preview's read is all.
    const answer = timed(
      h.request(`/api/v1/admin/programs/${f.programId}/rules/preview`, {
        body: { reward_rules: { sale: { type: 'percent', bps: 500 } } },
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
    );
    await new Promise((r) => setTimeout(r, BOUND_MS * 2.5));
    proxy.thaw();
    const [r, ms] = await answer;
    expect(r.status).toBe(200);
    expect(ms).toBeGreaterThan(BOUND_MS * 2.5);
  });

  test('an export download under way is not cut by a hang longer than the bound: it resumes and ends whole', async () => {
    const program = await createProgramFixture(h);
    const rows = 20_000;
    await direct(
      `insert into sale (program_id, transaction_id, amount_cents, currency, sale_type, received_at)
       select $1, 'export-' || i, 1000 + i, 'USD', 'payment', now() from generate_series(1, $2::int) i`,
      [program.programId, rows],
    );
    const base = await h.listen();
    const res = await fetch(`${base}/api/v1/admin/programs/${program.programId}/exports/sales`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const read = async (untilBytes: number) => {
      while (text.length < untilBytes) {
        const { done, value } = await reader.read();
        if (done) return true;
        text += decoder.decode(value, { stream: true });
      }
      return false;
    };
    await read(1);
    proxy.freeze();
    // Reading on drains the socket, so the server reads its next pages: they wait for the database.
    const rest = (async () => {
      while (!(await read(text.length + 1)));
      return text;
    })();
    await new Promise((r) => setTimeout(r, BOUND_MS * 2.5));
    proxy.thaw();
    const csv = await pTimeout(rest, { milliseconds: 20_000 });
    const lines = csv.trimEnd().split('\n');
    expect(lines).toHaveLength(rows + 1);
    expect(lines.at(-1)).toContain(`export-${rows}`);
  });
});
