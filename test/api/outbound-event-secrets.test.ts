import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createProgramFixture,
  useHarness,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { createSealer, generateSealingKey, parseSealingKeys } from '../../src/core/shared/sealed-secrets.ts';
import { resealSecrets } from '../../src/core/programs/reseal-secrets.ts';
import { openEndpointSecret } from '../../src/core/outbound/endpoint-secrets.ts';

/**
 * Outbound event signing secrets at rest: sealed in both columns (what the database holds is never
 * the secret), deliveries still verify with the secret shown once, a plaintext row from before
 * sealing keeps signing and `secrets:reseal` seals it, a key rotation re-seals them, and no log
 * line carries a secret.
 */
const KEY = generateSealingKey('k1');

type Received = { path: string; headers: IncomingHttpHeaders; body: string };
const received: Received[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const verifies = (secret: string, r: Received) => {
  try {
    new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
};
const at = (path: string) => received.filter((r) => r.path === path);

let seq = 0;
async function endpoint(h: Harness, f: Fixture) {
  const path = `/sealed-${++seq}`;
  const r = await h.admin('POST', `/programs/${f.programId}/event-endpoints`, {
    url: `${base}${path}`,
    event_types: ['sale.created'],
  });
  return { path, id: r.endpoint.id as number, secret: r.secret as string };
}
/** A sale (after a click and lead) and the next delivery the receiver gets at `path`. */
async function deliveredSale(h: Harness, f: Fixture, path: string): Promise<Received> {
  const before = at(path).length;
  const customer = `cust-${++seq}`;
  await clickAndLead(h, f, customer);
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `tx-sealed-${seq}`, amount_cents: 5000, currency: 'USD', customer_key: customer },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  return waitFor(() => at(path)[before]);
}
/** The two secret columns as PostgreSQL holds them. */
async function rawSecrets(h: Harness, endpointId: number): Promise<{ secret: string; previous_secret: string | null }> {
  const [row] = await h.ctx
    .deps()
    .em.execute(`select secret, previous_secret from event_endpoint where id = ?`, [endpointId]);
  return row as { secret: string; previous_secret: string | null };
}

describe('with DATA_ENCRYPTION_KEYS', () => {
  const h = useHarness({
    DATA_ENCRYPTION_KEYS: KEY,
    LOG_LEVEL: 'debug',
    EVENT_RETRY_BASE_MS: '50',
    // The receiver listens on this machine: a private address the URL guard allows only when listed.
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  });

  test('both secrets are stored sealed through a rotation; deliveries verify with the secrets shown once', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(h, f);
    const created = await rawSecrets(h, ep.id);
    expect(created.secret).toMatch(/^v1:k1:/);
    expect(created.secret).not.toContain(ep.secret.slice('whsec_'.length));
    expect(created.previous_secret).toBeNull();
    expect(verifies(ep.secret, await deliveredSale(h, f, ep.path))).toBe(true);

    const rotated = await h.admin('POST', `/programs/${f.programId}/event-endpoints/${ep.id}/rotate-secret`);
    const both = await rawSecrets(h, ep.id);
    expect(both.secret).toMatch(/^v1:k1:/);
    expect(both.previous_secret).toBe(created.secret);
    for (const s of [ep.secret, rotated.secret as string]) expect(JSON.stringify(both)).not.toContain(s.slice(6));
    const overlap = await deliveredSale(h, f, ep.path);
    expect(verifies(ep.secret, overlap)).toBe(true);
    expect(verifies(rotated.secret, overlap)).toBe(true);

    // Neither the listing nor any log line (debug level) carries a secret, sealed or not.
    const listed = JSON.stringify(await h.admin('GET', `/programs/${f.programId}/event-endpoints`));
    const logs = JSON.stringify(h.logs);
    expect(logs).toContain('outbound event delivered');
    for (const text of [listed, logs])
      for (const s of [ep.secret, rotated.secret, both.secret, both.previous_secret!]) expect(text).not.toContain(s);
  });

  test('a plaintext secret from before sealing still signs; reseal seals it and it keeps verifying', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(h, f);
    const legacy = 'whsec_bGVnYWN5LXNlY3JldC1mcm9tLWJlZm9yZS1zZWFsaW5nISE=';
    await h.ctx.deps().em.execute(`update event_endpoint set secret = ? where id = ?`, [legacy, ep.id]);
    h.ctx.deps().caches.eventEndpoints.delete(f.programId);
    expect(verifies(legacy, await deliveredSale(h, f, ep.path))).toBe(true);

    const report = await resealSecrets(h.ctx.deps());
    expect(report.resealed).toBeGreaterThanOrEqual(1);
    const sealed = await rawSecrets(h, ep.id);
    expect(sealed.secret).toMatch(/^v1:k1:/);
    expect(sealed.secret).not.toContain(legacy.slice(6));
    expect(verifies(legacy, await deliveredSale(h, f, ep.path))).toBe(true);
    // Every row is sealed under the current key now: nothing more to do.
    expect(await resealSecrets(h.ctx.deps())).toMatchObject({ resealed: 0 });
  });

  test('rotating a plaintext secret seals it as the old one', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(h, f);
    const legacy = 'whsec_YW5vdGhlci1wbGFpbnRleHQtc2VjcmV0LWZyb20tYmVmb3JlIQ==';
    await h.ctx.deps().em.execute(`update event_endpoint set secret = ? where id = ?`, [legacy, ep.id]);
    const rotated = await h.admin('POST', `/programs/${f.programId}/event-endpoints/${ep.id}/rotate-secret`);
    const raw = await rawSecrets(h, ep.id);
    expect(raw.previous_secret).toMatch(/^v1:k1:/);
    expect(JSON.stringify(raw)).not.toContain(legacy.slice(6));
    const overlap = await deliveredSale(h, f, ep.path);
    expect(verifies(legacy, overlap)).toBe(true);
    expect(verifies(rotated.secret, overlap)).toBe(true);
  });

  test('a secret sealed under a key the process lacks: nothing sent, no failure counted; restored, the retry delivers', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(h, f);
    const good = (await rawSecrets(h, ep.id)).secret;
    const foreign = createSealer(parseSealingKeys(generateSealingKey('gone'))).seal(ep.secret, 'event_endpoint.secret');
    await h.ctx.deps().em.execute(`update event_endpoint set secret = ? where id = ?`, [foreign, ep.id]);
    const customer = `cust-${++seq}`;
    await clickAndLead(h, f, customer);
    await h.request('/api/v1/track/sale', {
      body: { transaction_id: `tx-gone-${seq}`, amount_cents: 5000, currency: 'USD', customer_key: customer },
      headers: bearer(f.liveKey),
    });
    await waitFor(() => JSON.stringify(h.logs).includes(`event endpoint ${ep.id} cannot be opened`));
    expect(at(ep.path)).toHaveLength(0);
    const { endpoints } = await h.admin('GET', `/programs/${f.programId}/event-endpoints`);
    expect(endpoints[0]).toMatchObject({ consecutive_failures: 0, active: true });
    const { deliveries } = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
    expect(deliveries[0]).toMatchObject({ status: 'pending', attempts: 0 });

    await h.ctx.deps().em.execute(`update event_endpoint set secret = ? where id = ?`, [good, ep.id]);
    const r = await waitFor(() => at(ep.path)[0]);
    expect(verifies(ep.secret, r)).toBe(true);
  });

  test('a data key rotation re-seals both columns; only the new key is needed afterwards', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(h, f);
    const rotated = await h.admin('POST', `/programs/${f.programId}/event-endpoints/${ep.id}/rotate-secret`);
    const newKey = generateSealingKey('k2');
    await resealSecrets({ ...h.ctx.deps(), sealer: createSealer(parseSealingKeys(`${newKey},${KEY}`)) });
    const raw = await rawSecrets(h, ep.id);
    expect(raw.secret).toMatch(/^v1:k2:/);
    expect(raw.previous_secret).toMatch(/^v1:k2:/);
    const newOnly = createSealer(parseSealingKeys(newKey));
    expect(openEndpointSecret(newOnly, ep.id, raw.secret)).toBe(rotated.secret);
    expect(openEndpointSecret(newOnly, ep.id, raw.previous_secret!)).toBe(ep.secret);
    // The old key alone no longer opens them, and the error names the endpoint, not the value.
    const oldOnly = createSealer(parseSealingKeys(KEY));
    expect(() => openEndpointSecret(oldOnly, ep.id, raw.secret)).toThrow(
      new RegExp(`event endpoint ${ep.id} cannot be opened: .*"k2"`),
    );
  });
});

describe('without DATA_ENCRYPTION_KEYS', () => {
  const h = useHarness({ OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });

  test('production mode refuses to create an endpoint (nothing stored in clear); embedded mode seals with its generated key', async () => {
    const f = await createProgramFixture(h);
    const r = await h.request(`/api/v1/admin/programs/${f.programId}/event-endpoints`, {
      body: { url: `${base}/unsealed` },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    if (h.mode === 'production') {
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/DATA_ENCRYPTION_KEYS is not set/);
      const [row] = await h.ctx.deps().em.execute(`select count(*)::int as n from event_endpoint`);
      expect(row?.n).toBe(0);
    } else {
      expect(r.status).toBe(201);
      expect((await rawSecrets(h, r.body.endpoint.id)).secret).toMatch(/^v1:mem:/);
    }
  });
});
