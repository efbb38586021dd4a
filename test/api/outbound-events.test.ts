import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';

/**
 * Outbound events end to end, both modes: a real HTTP receiver verifies every delivery with the
 * `standardwebhooks` package over the raw body; retries keep the webhook-id; rotation; tenancy;
 * a tracking call answers the same with an unreachable endpoint; disabling after failures.
 */
const h = useHarness({
  // Endpoint secrets are stored sealed: production mode needs a key (embedded mode generates one).
  DATA_ENCRYPTION_KEYS: generateSealingKey('k1'),
  EVENT_ATTEMPTS: '6',
  EVENT_RETRY_BASE_MS: '50',
  // The receiver runs in the test's own process, beside the embedded database: generous.
  EVENT_TIMEOUT_MS: '1500',
  EVENT_DISABLE_AFTER_FAILURES: '5',
  // The receiver listens on this machine: a private address the URL guard allows only when listed.
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
});

type Received = { path: string; headers: IncomingHttpHeaders; body: string; type: string; data: any };
/** What the receiver does for a path: answer a status, or hang (never answer). */
type Behaviour = number | 'hang';

const received: Received[] = [];
const plans = new Map<string, Behaviour[]>();
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const next = plans.get(path)?.shift() ?? 200;
      const parsed = JSON.parse(body);
      received.push({ path, headers: req.headers, body, type: parsed.type, data: parsed.data });
      if (next === 'hang') return; // never answers: the sender's timeout decides
      res.writeHead(next, { 'content-type': 'text/plain' }).end(next === 200 ? 'ok' : 'x'.repeat(900));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});
const verifies = (secret: string, r: Received) => {
  try {
    new Webhook(secret).verify(r.body, headersOf(r));
    return true;
  } catch {
    return false;
  }
};
const at = (path: string) => received.filter((r) => r.path === path);

let seq = 0;
async function endpoint(f: Fixture, types: string[] | null = null) {
  const path = `/hook-${++seq}`;
  const r = await h.admin('POST', `/programs/${f.programId}/event-endpoints`, {
    url: `${base}${path}`,
    ...(types ? { event_types: types } : {}),
  });
  return { path, id: r.endpoint.id as number, secret: r.secret as string };
}
async function sale(f: Fixture, customerKey: string, amount = 10_000) {
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `tx-${++seq}`, amount_cents: amount, currency: 'USD', customer_key: customerKey },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  return r;
}

describe('outbound events', () => {
  test('every event type is delivered, signed and verifiable; secrets are shown once', async () => {
    const f = await createProgramFixture(h, { reward_rules: { lead: { currency: 'USD', cents: 300 } } });
    const ep = await endpoint(f);
    expect(ep.secret).toMatch(/^whsec_/);
    const listed = await h.admin('GET', `/programs/${f.programId}/event-endpoints`);
    expect(JSON.stringify(listed)).not.toContain(ep.secret);

    const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, { code: `ev${seq}`, name: 'P2' });
    await clickAndLead(h, f, 'cust-all');
    const s = (await sale(f, 'cust-all')).body;
    await h.admin('POST', `/programs/${f.programId}/commissions/${s.commission_id}/approve`);
    const { payout } = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: 'USD',
    });
    await h.admin('POST', `/programs/${f.programId}/payouts/${payout.id}/pay`);
    const refund = await h.request('/api/v1/track/refund', {
      body: { transaction_id: `tx-${seq}`, refund_amount_cents: 1000, refund_id: 're_1' },
      headers: bearer(f.liveKey),
    });
    expect(refund.body).toMatchObject({ success: true, status: 'refunded' });

    const want = [
      'partner.created',
      'lead.created',
      'sale.created',
      'commission.created',
      'payout.created',
      'payout.paid',
      'commission.updated',
    ];
    await waitFor(() => {
      const types = new Set(at(ep.path).map((r) => r.type));
      return want.every((t) => types.has(t)) && at(ep.path).filter((r) => r.type === 'commission.updated').length >= 3;
    });
    for (const r of at(ep.path)) {
      expect(verifies(ep.secret, r)).toBe(true);
      expect(r.headers['webhook-id']).toMatch(/^evt_[0-9a-f]{32}$/);
    }
    const of = (type: string) => at(ep.path).filter((r) => r.type === type);
    expect(of('partner.created')[0]!.data).toMatchObject({ id: partner.id, code: partner.code });
    expect(of('lead.created')[0]!.data).toMatchObject({ customer_key: 'cust-all', partner_id: f.partnerId });
    expect(of('sale.created')[0]!.data).toMatchObject({
      id: s.sale_id,
      amount_cents: 10_000,
      currency: 'USD',
      partner_id: f.partnerId,
    });
    const created = of('commission.created').map((r) => r.data);
    expect(created.map((c) => c.id)).toContain(s.commission_id);
    expect(created.find((c) => c.id === s.commission_id)).toMatchObject({ amount_cents: 1000, status: 'pending' });
    expect(created.some((c) => c.lead_customer_id !== null && c.amount_cents === 300)).toBe(true);
    const changes = of('commission.updated')
      .filter((r) => r.data.id === s.commission_id)
      .map((r) => r.data.change);
    expect(changes.sort()).toEqual(['approved', 'paid', 'refunded']); // retries may reorder deliveries
    expect(of('payout.paid')[0]!.data).toMatchObject({ id: payout.id, status: 'paid', currency: 'USD' });
    expect(of('payout.paid')[0]!.data.commission_ids).toContain(s.commission_id);

    await waitFor(async () => {
      const { deliveries } = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return deliveries.length >= want.length && deliveries.every((d: any) => d.status === 'delivered');
    });
  });

  test("a payout run's payout: payout.created processing, then payout.failed with its commissions payable again", async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['payout.created', 'payout.failed', 'commission.updated']);
    await clickAndLead(h, f, 'cust-run');
    const s = (await sale(f, 'cust-run')).body;
    await h.admin('POST', `/programs/${f.programId}/commissions/${s.commission_id}/approve`);
    const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
    const payoutId = run.payouts[0].id;
    await h.admin('POST', `/programs/${f.programId}/payouts/${payoutId}/fail`, { reason: 'bank refused' });
    const of = (type: string) => at(ep.path).filter((r) => r.type === type);
    await waitFor(() => of('payout.failed').length === 1 && of('commission.updated').length >= 2);
    for (const r of at(ep.path)) expect(verifies(ep.secret, r)).toBe(true);
    expect(of('payout.created')[0]!.data).toMatchObject({ id: payoutId, status: 'processing', rail: 'manual' });
    expect(of('payout.failed')[0]!.data).toMatchObject({
      id: payoutId,
      status: 'failed',
      failure_reason: 'bank refused',
      commission_ids: [s.commission_id],
    });
    const failed = of('commission.updated').find((r) => r.data.change === 'payout_failed');
    expect(failed!.data).toMatchObject({ id: s.commission_id, status: 'approved', payout_id: payoutId });
  });

  test('a 500 then success is retried under the same webhook-id; the delivery records both attempts', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    plans.set(ep.path, [500]);
    await clickAndLead(h, f, 'cust-retry');
    await sale(f, 'cust-retry');
    await waitFor(() => at(ep.path).length >= 2);
    const [first, second] = at(ep.path);
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(first!.body).toBe(second!.body);
    expect(verifies(ep.secret, second!)).toBe(true);
    const d = await waitFor(async () => {
      const { deliveries } = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return deliveries[0]?.status === 'delivered' && deliveries[0];
    });
    expect(d).toMatchObject({ attempts: 2, last_status_code: 200, last_response_excerpt: 'ok' });
  });

  test('a receiver that hangs past the timeout is retried', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    plans.set(ep.path, ['hang']);
    await clickAndLead(h, f, 'cust-hang');
    await sale(f, 'cust-hang');
    await waitFor(() => at(ep.path).length >= 2);
    expect(at(ep.path)[0]!.headers['webhook-id']).toBe(at(ep.path)[1]!.headers['webhook-id']);
    await waitFor(async () => {
      const { deliveries } = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return deliveries[0]?.status === 'delivered' && deliveries[0].attempts === 2;
    });
  });

  test('rotation: both secrets verify during the overlap, only the new one after the old is expired', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    await clickAndLead(h, f, 'cust-rot');
    const rotated = await h.admin('POST', `/programs/${f.programId}/event-endpoints/${ep.id}/rotate-secret`);
    expect(rotated.secret).not.toBe(ep.secret);
    expect(rotated.endpoint.rotating).toBe(true);
    await sale(f, 'cust-rot');
    const overlap = await waitFor(() => at(ep.path)[0]);
    expect(String(overlap.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(ep.secret, overlap)).toBe(true);
    expect(verifies(rotated.secret, overlap)).toBe(true);
    // A second rotation during the overlap is refused, naming the field.
    const again = await h.request(`/api/v1/admin/programs/${f.programId}/event-endpoints/${ep.id}/rotate-secret`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
    });
    expect(again.status).toBe(400);

    await h.admin('POST', `/programs/${f.programId}/event-endpoints/${ep.id}/expire-old-secret`);
    await sale(f, 'cust-rot');
    const after = await waitFor(() => at(ep.path)[1]);
    expect(verifies(rotated.secret, after)).toBe(true);
    expect(verifies(ep.secret, after)).toBe(false);
  });

  test("an endpoint of another program never receives this program's events", async () => {
    const mine = await createProgramFixture(h);
    const other = await createProgramFixture(h);
    const theirs = await endpoint(other);
    const ours = await endpoint(mine, ['sale.created']);
    await clickAndLead(h, mine, 'cust-tenancy');
    await sale(mine, 'cust-tenancy');
    await waitFor(() => at(ours.path).length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(at(theirs.path)).toHaveLength(0);
    const foreign = await h.request(`/api/v1/admin/programs/${other.programId}/event-endpoints/${ours.id}`, {
      method: 'PATCH',
      body: { enabled: false },
      headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
    });
    expect(foreign.status).toBe(404);
  });

  test('a tracking call answers the same with an unreachable endpoint', async () => {
    const f = await createProgramFixture(h);
    const g = await createProgramFixture(h);
    await h.admin('POST', `/programs/${f.programId}/event-endpoints`, { url: 'http://127.0.0.1:9/unreachable' });
    await clickAndLead(h, f, 'cust-x');
    await clickAndLead(h, g, 'cust-x');
    const withEndpoint = (await sale(f, 'cust-x', 4900)).body;
    const without = (await sale(g, 'cust-x', 4900)).body;
    const shape = (b: any) => ({ ...b, sale_id: 0, commission_id: 0 });
    expect(shape(withEndpoint)).toEqual(shape(without));
    expect(Object.keys(withEndpoint).sort()).toEqual(Object.keys(without).sort());
  });

  test('bad urls are refused naming the field', async () => {
    const f = await createProgramFixture(h);
    for (const url of ['http://example.com/hook', 'ftp://x', 'not a url', 'https://u:p@example.com/']) {
      const r = await h.request(`/api/v1/admin/programs/${f.programId}/event-endpoints`, {
        body: { url },
        headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
      });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain('url');
    }
  });

  test('after consecutive failures the endpoint is disabled and the advertiser notified; replay resends', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    plans.set(ep.path, Array(8).fill(500));
    await clickAndLead(h, f, 'cust-dis');
    await sale(f, 'cust-dis');
    const disabled = await waitFor(async () => {
      const { endpoints } = await h.admin('GET', `/programs/${f.programId}/event-endpoints`);
      return endpoints[0].disabled_at ? endpoints[0] : false;
    });
    expect(disabled).toMatchObject({ active: false, enabled: true, consecutive_failures: 5 });
    const note = await waitFor(async () => {
      const { notifications } = await h.admin('GET', `/programs/${f.programId}/notifications?limit=50`);
      return notifications.find((n: any) => n.kind === 'advertiser_event_endpoint_disabled');
    });
    expect(note.payload).toMatchObject({ endpoint_id: ep.id, consecutive_failures: 5 });
    const { deliveries } = await waitFor(async () => {
      const r = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return r.deliveries[0]?.status === 'failed' && r;
    });
    expect(deliveries[0].last_status_code).toBe(500);
    expect(deliveries[0].last_response_excerpt).toBe('x'.repeat(256)); // of the 900 bytes answered
    // Nothing more is sent while disabled; re-enabled, a replay goes out under the same id.
    const sentBefore = at(ep.path).length;
    await sale(f, 'cust-dis');
    await new Promise((r) => setTimeout(r, 300));
    expect(at(ep.path)).toHaveLength(sentBefore);
    plans.set(ep.path, []);
    await h.admin('PATCH', `/programs/${f.programId}/event-endpoints/${ep.id}`, { enabled: true });
    await h.admin('POST', `/programs/${f.programId}/event-deliveries/${deliveries[0].id}/replay`);
    await waitFor(() => at(ep.path).length > sentBefore);
    expect(at(ep.path).at(-1)!.headers['webhook-id']).toBe(deliveries[0].event_id);
  });
});
