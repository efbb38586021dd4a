/**
 * A real HTTP receiver of outbound events beside a harness configured to send them: what it
 * received per path, what it answers (a status, or never), and the steps the outbound tests share.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect } from 'vitest';
import { bearer, useHarness, type Fixture } from '../helpers/harness.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';

export type Received = { path: string; headers: IncomingHttpHeaders; body: string; type: string; data: any };
/** What the receiver does for a path: answer a status, or hang (never answer). */
type Behaviour = number | 'hang';

export function useOutboundReceiver() {
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
    return { ...r, transactionId: `tx-${seq}` };
  }

  return { h, plans, verifies, at, endpoint, sale };
}
