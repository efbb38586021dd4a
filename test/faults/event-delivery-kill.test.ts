/**
 * SIGKILL the worker while it is sending an outbound event (the merchant's receiver holds the
 * request open), start another: the event is delivered afterwards under the same webhook-id, with
 * the same body and a signature the endpoint's secret verifies, and the delivery log says so.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { adminCall } from '../helpers/load-fixture.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { createFaultEnv, sendSaleWithRetry, waitFor, type FaultEnv } from './fault-env.ts';

type Received = { headers: IncomingHttpHeaders; body: string; at: number };
const received: Received[] = [];
/** The first request is held open (never answered); later ones get 200. */
const held: ServerResponse[] = [];
let receiver: Server;
let receiverUrl = '';
let env: FaultEnv;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      if (received.length === 1) held.push(res);
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('received after the kill');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
  env = await createFaultEnv({
    roles: ['http', 'worker'],
    customers: 20,
    partners: 2,
    env: {
      // Endpoint secrets are stored sealed: every process needs the same key.
      DATA_ENCRYPTION_KEYS: generateSealingKey('fault1'),
      // Longer than the test holds the request: the kill, not the sender's timeout, ends the attempt.
      EVENT_TIMEOUT_MS: '60000',
      EVENT_RETRY_BASE_MS: '200',
      // The receiver listens on this machine: a private address the URL guard allows only when listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    },
  });
});
afterAll(async () => {
  await env?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

test('a worker killed while a delivery is in flight: the new worker delivers the same event, signed', async () => {
  const f = env.fixture;
  const admin = (method: string, path: string, body?: unknown) =>
    adminCall(env.http.url, env.adminToken, method, path, body);
  const { endpoint, secret } = await admin('POST', `/programs/${f.programId}/event-endpoints`, {
    url: receiverUrl,
    event_types: ['sale.created'],
  });
  const { final } = await sendSaleWithRetry(env.http.url, f.liveKey, {
    transaction_id: 'evt-kill-1',
    amount_cents: 12_300,
    customer_key: f.customerKey(3),
  });
  expect(final.status).toBe(200);

  // The worker has sent the request and waits for an answer that never comes.
  await waitFor('the delivery request to reach the receiver', 30_000, async () => received.length === 1);
  const inFlight = received[0]!;
  const deliveries = `/programs/${f.programId}/event-endpoints/${endpoint.id}/deliveries`;
  const [before] = (await admin('GET', deliveries)).deliveries;
  expect(before).toMatchObject({ status: 'pending', attempts: 0, event_id: inFlight.headers['webhook-id'] });

  const worker = env.procs.find((p) => p.role === 'worker')!;
  worker.signal('SIGKILL');
  expect(await worker.exited).toBe('SIGKILL');
  const killedAt = Date.now();
  await env.start('worker');

  // BullMQ hands the killed worker's active job to the new one once its lock expires (30 s).
  await waitFor('the event to be delivered again', 90_000, async () => received.length >= 2);
  const after = received.at(-1)!;
  expect(after.at).toBeGreaterThan(killedAt);
  expect(after.headers['webhook-id']).toBe(inFlight.headers['webhook-id']);
  expect(after.headers['webhook-id']).toMatch(/^evt_[0-9a-f]{32}$/);
  expect(after.body).toBe(inFlight.body);
  expect(JSON.parse(after.body)).toMatchObject({ type: 'sale.created', data: { transaction_id: 'evt-kill-1' } });
  // The `standardwebhooks` package verifies it with the secret shown when the endpoint was created.
  expect(() => new Webhook(secret).verify(after.body, headersOf(after))).not.toThrow();
  expect(() => new Webhook(secret).verify(after.body, { ...headersOf(after), 'webhook-id': 'evt_other' })).toThrow();

  let delivered: any;
  await waitFor('the delivery log to record it', 15_000, async () => {
    [delivered] = (await admin('GET', deliveries)).deliveries;
    return delivered?.status === 'delivered';
  });
  expect(delivered).toMatchObject({
    id: before.id,
    event_id: inFlight.headers['webhook-id'],
    status: 'delivered',
    last_status_code: 200,
    last_response_excerpt: 'received after the kill',
  });
  expect(delivered.attempts).toBeGreaterThanOrEqual(1);
  expect(Date.parse(delivered.delivered_at)).toBeGreaterThan(killedAt);
  // The endpoint stays healthy: an attempt cut off by a kill is no failure of the merchant's.
  const { endpoints } = await admin('GET', `/programs/${f.programId}/event-endpoints`);
  expect(endpoints[0]).toMatchObject({ active: true, consecutive_failures: 0 });
  console.log(
    `event delivery kill: redelivered ${((after.at - killedAt) / 1000).toFixed(1)} s after the kill, ${received.length} requests received, ${delivered.attempts} attempt(s) recorded`,
  );
});
