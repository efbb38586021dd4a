/**
 * Connections with several secrets: rotation overlap and expiry, `test` secrets turning every
 * event they verify into test traffic (how Paddle sandbox deliveries stay out of production), and
 * the admin API that manages them without ever showing a secret.
 */
import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/harness.ts';
import { paddleKit } from './kits/paddle-kit.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';

const w = useWebhookHarness(paddleKit);
const SANDBOX_SECRET = 'pdl_ntfset_01sandbox_s3cr3tKeyForTests';
const NEW_SECRET = 'pdl_ntfset_01rotated_s3cr3tKeyForTests';

async function deliverSigned(programId: number, event: object, secret: string) {
  const body = JSON.stringify(event);
  return w.send(programId, body, paddleKit.sign(body, w.h.clock.now, secret));
}

describe('provider secrets: admin API', () => {
  test('add, list, expire and remove; the secret is never returned, only a fingerprint', async () => {
    const { programId } = await w.newProgram();
    const base = `/programs/${programId}/providers/paddle/secrets`;
    const added = await w.h.request(`/api/v1/admin${base}`, {
      method: 'POST',
      body: { secret: SANDBOX_SECRET, label: 'test' },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(added.status).toBe(201);
    expect(added.body.secret).toEqual({
      id: expect.any(Number),
      label: 'test',
      created_at: w.h.clock.now.toISOString(),
      expires_at: null,
      fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
    });

    const { secrets } = await w.h.admin('GET', base);
    expect(secrets.map((s: { label: string }) => s.label)).toEqual(['live', 'test']);
    expect(secrets[0].fingerprint).not.toBe(secrets[1].fingerprint);
    expect(JSON.stringify(secrets)).not.toContain(SANDBOX_SECRET);
    expect(JSON.stringify(secrets)).not.toContain(paddleKit.secret);

    const at = '2031-05-01T12:00:00.000Z';
    expect((await w.h.admin('POST', `${base}/${secrets[0].id}/expire`, { at })).secret).toMatchObject({
      id: secrets[0].id,
      expires_at: at,
    });
    expect((await w.h.admin('POST', `${base}/${secrets[1].id}/expire`, {})).secret.expires_at).toBe(
      w.h.clock.now.toISOString(),
    );
    expect(await w.h.admin('DELETE', `${base}/${secrets[1].id}`)).toEqual({ removed: true });
    expect((await w.h.admin('GET', base)).secrets.map((s: { id: number }) => s.id)).toEqual([secrets[0].id]);
  });

  test.each([
    ['a bad label', 400, 'invalid_request', 'POST', 'secrets', { secret: SANDBOX_SECRET, label: 'sandbox' }],
    ['a short secret', 400, 'invalid_request', 'POST', 'secrets', { secret: 'short', label: 'live' }],
    [
      'an unknown field',
      400,
      'invalid_request',
      'POST',
      'secrets',
      { secret: SANDBOX_SECRET, label: 'live', note: 'x' },
    ],
    ['an unknown secret id', 404, 'not_found', 'POST', 'secrets/999999/expire', {}],
    ['removing an unknown secret', 404, 'not_found', 'DELETE', 'secrets/999999', undefined],
  ] as const)('%s → %i %s', async (_label, status, code, method, path, body) => {
    const { programId } = await w.newProgram();
    const res = await w.h.request(`/api/v1/admin/programs/${programId}/providers/paddle/${path}`, {
      method,
      ...(body ? { body } : {}),
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect([res.status, res.body.error?.code]).toEqual([status, code]);
  });

  test('listing the secrets of an unconnected provider or unknown program → 404', async () => {
    const { programId } = await w.newProgram();
    for (const path of [
      `/programs/${programId}/providers/stripe/secrets`,
      '/programs/999999/providers/paddle/secrets',
      `/programs/${programId}/providers/nope/secrets`,
    ]) {
      const res = await w.h.request(`/api/v1/admin${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect([res.status, res.body.error.code], path).toEqual([404, 'not_found']);
    }
  });
});

describe('provider secrets: rotation', () => {
  test('during the overlap events signed with either secret verify; after expiry the old one fails', async () => {
    const f = await w.newProgram();
    const base = `/programs/${f.programId}/providers/paddle/secrets`;
    const [old] = (await w.h.admin('GET', base)).secrets;
    await w.h.admin('POST', base, { secret: NEW_SECRET, label: 'live' });
    const expiresAt = new Date(w.h.clock.now.getTime() + 86_400_000);
    await w.h.admin('POST', `${base}/${old.id}/expire`, { at: expiresAt.toISOString() });

    for (const secret of [paddleKit.secret, NEW_SECRET]) {
      expect((await deliverSigned(f.programId, paddleKit.unhandled(), secret)).status, secret).toBe(200);
    }
    w.h.clock.now = new Date(expiresAt.getTime() - 1000);
    expect((await deliverSigned(f.programId, paddleKit.unhandled(), paddleKit.secret)).status).toBe(200);

    w.h.clock.now = expiresAt;
    const refused = await deliverSigned(f.programId, paddleKit.unhandled(), paddleKit.secret);
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      400,
      'invalid_signature',
      { reason: 'signature_mismatch' },
    ]);
    expect((await deliverSigned(f.programId, paddleKit.unhandled(), NEW_SECRET)).status).toBe(200);
  });

  test('a stale delivery signed with a current secret reports the timestamp, not a mismatch', async () => {
    const f = await w.newProgram();
    await w.h.admin('POST', `/programs/${f.programId}/providers/paddle/secrets`, { secret: NEW_SECRET, label: 'live' });
    const body = JSON.stringify(paddleKit.unhandled());
    const res = await w.send(f.programId, body, paddleKit.signExpired!(body, w.h.clock.now));
    expect(res.body.error.details).toEqual({ reason: 'timestamp_outside_tolerance' });
  });

  test('a connection whose every secret expired or was removed refuses everything', async () => {
    const f = await w.newProgram();
    const base = `/programs/${f.programId}/providers/paddle/secrets`;
    const [only] = (await w.h.admin('GET', base)).secrets;
    await w.h.admin('DELETE', `${base}/${only.id}`);
    const res = await deliverSigned(f.programId, paddleKit.unhandled(), paddleKit.secret);
    expect([res.status, res.body.error.details]).toEqual([400, { reason: 'missing_secret' }]);
  });
});

describe('provider secrets: test secrets (Paddle sandbox)', () => {
  async function sandboxProgram() {
    const f = await w.newProgram();
    await w.h.admin('POST', `/programs/${f.programId}/providers/paddle/secrets`, {
      secret: SANDBOX_SECRET,
      label: 'test',
    });
    return f;
  }

  test('a sale verified by the test secret never creates a live sale, even with no test flag in custom_data', async () => {
    const f = await sandboxProgram();
    const customer = await w.newCustomer(f);
    const payment = paddleKit.payment({ ref: newRef('sbx'), amountCents: 10000, keys: keysOf(f, customer) });
    const res = await deliverSigned(f.programId, payment.event, SANDBOX_SECRET);
    expect(res.status).toBe(200);
    const row = await w.waitForInbox(f.programId, res.body.id, 'processed');
    expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
    for (const kind of ['sales', 'commissions'] as const) expect(await w.list(f.programId, kind)).toEqual([]);
    expect(await w.list(f.programId, 'test-events')).toEqual([
      expect.objectContaining({ transaction_id: payment.transactionId }),
    ]);

    // Its refund, also from the sandbox, stays a test event too.
    const refund = paddleKit.refund({
      ref: payment.transactionId.replace(/^txn_/, ''),
      saleAmountCents: 10000,
      refundId: `adj_${newRef('r')}`,
      amountCents: 4000,
      totalCents: 4000,
    });
    const refunded = await deliverSigned(f.programId, refund, SANDBOX_SECRET);
    await w.waitForInbox(f.programId, refunded.body.id, 'processed');
    expect(await w.list(f.programId, 'refunds')).toEqual([]);
  });

  test('the same connection still records live sales verified by its live secret', async () => {
    const f = await sandboxProgram();
    const customer = await w.newCustomer(f);
    const payment = paddleKit.payment({ ref: newRef('live'), amountCents: 10000, keys: keysOf(f, customer) });
    const res = await deliverSigned(f.programId, payment.event, paddleKit.secret);
    await w.waitForInbox(f.programId, res.body.id, 'processed');
    expect(await w.sale(f.programId, payment.transactionId)).toMatchObject({ amount_cents: 10000 });
    expect(await w.list(f.programId, 'test-events')).toEqual([]);
  });
});
