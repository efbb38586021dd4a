/** The server client against the real service: every error answer is mapped to `{ ok: false, status, code, error }`. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTrackerClient, type TrackerClient } from '../../tracker/src/client.ts';
import type { Currency } from '../../tracker/src/client-types.ts';
import { bearer, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { findClosedPort } from '../tracker/test-http-server.ts';
import { clickAndLeadVia, startClientTarget } from './client-target.ts';
import { rows } from './e2e-helpers.ts';

let h: Harness;
let base: string;
let f: Fixture;
let client: TrackerClient;
beforeAll(async () => {
  ({ h, base, f, client } = await startClientTarget());
});
afterAll(async () => {
  await h.close();
});
const clickAndLead = (customerKey: string) => clickAndLeadVia({ client, f }, customerKey);

describe('errors are mapped to { ok: false, status, code, error }', () => {
  test('400 invalid_request (click without aff, refund with an unknown reason) and 400 no_attribution', async () => {
    const click = await client.trackClick({ affiliateUrl: 'https://shop.example/pricing' });
    expect(click).toMatchObject({
      ok: false,
      status: 400,
      data: null,
      code: 'invalid_request',
      error: expect.stringMatching(/^invalid_request: /),
    });
    const refund = await client.trackRefund({ invoiceId: 'inv-c1', reason: 'goodwill' as 'refund' });
    expect(refund).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_request',
      error: expect.stringMatching(/^invalid_request: .*reason must be "refund" or "chargeback"/),
    });
    const sale = await client.trackSale({ customerExternalId: 'nobody', amount: 100, invoiceId: 'inv-nobody' });
    expect(sale).toMatchObject({ ok: false, status: 400, code: 'no_attribution' });
  });

  test('401 unauthorized for an unknown key, 401 api_key_rotation_required (with the hint) for a retired one', async () => {
    const unknown = await createTrackerClient({ apiKey: 'trk_live_not-a-real-key-000000', apiUrl: base }).status();
    expect(unknown).toMatchObject({
      ok: false,
      status: 401,
      data: null,
      code: 'unauthorized',
      error: 'unauthorized: Invalid API key',
    });

    const extra = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    const retiredClient = createTrackerClient({ apiKey: extra.key, apiUrl: base });
    expect((await retiredClient.status()).ok).toBe(true);
    await h.admin('POST', `/programs/${f.programId}/keys/${extra.id}/retire`, {});
    for (const res of [
      await retiredClient.status(),
      await retiredClient.trackSale({ customerExternalId: 'buyer-1', amount: 100, invoiceId: 'inv-retired' }),
    ]) {
      expect(res).toMatchObject({ ok: false, status: 401, code: 'api_key_rotation_required' });
      expect(res.error).toMatch(/^api_key_rotation_required: .+ \(Issue a new key/);
      expect(res.error).not.toContain(extra.key);
    }
  });

  test('404 not_found for a refund of an unknown sale, also when the sale belongs to another program', async () => {
    expect(await client.trackRefund({ invoiceId: 'no-such-invoice' })).toMatchObject({
      ok: false,
      status: 404,
      code: 'not_found',
    });
    const other = await createProgramFixture(h, { domain: 'shop.example' });
    const otherClient = createTrackerClient({ apiKey: other.liveKey, apiUrl: base });
    expect(await otherClient.trackRefund({ invoiceId: 'inv-c2' })).toMatchObject({
      ok: false,
      status: 404,
      code: 'not_found',
    });
  });

  test('409 duplicate_transaction: the client reports the code; the body carries details.sale_id of the first sale', async () => {
    await clickAndLead('buyer-dup');
    const first = await client.trackSale({ customerExternalId: 'buyer-dup', amount: 500, invoiceId: 'inv-dup' });
    const saleId = (first.data as { sale_id: number }).sale_id;
    const dup = await client.trackSale({ customerExternalId: 'buyer-dup', amount: 500, invoiceId: 'inv-dup' });
    expect(dup).toMatchObject({
      ok: false,
      status: 409,
      data: null,
      code: 'duplicate_transaction',
      error: expect.stringMatching(/^duplicate_transaction: /),
    });
    // The client result has no room for details (spec: data is null on failure); the wire has them.
    const raw = await h.request('/api/v1/track/sale', {
      body: { customer_key: 'buyer-dup', amount_cents: 500, transaction_id: 'inv-dup' },
      headers: bearer(f.liveKey),
    });
    expect(raw.body).toEqual({
      data: null,
      error: {
        status: 409,
        name: 'ConflictError',
        message: expect.any(String),
        details: { sale_id: saleId },
        code: 'duplicate_transaction',
      },
    });
    expect((await rows(h).sales(f.programId)).filter((s) => s.transactionId === 'inv-dup')).toHaveLength(1);
  });

  test('422 unsupported_currency creates nothing', async () => {
    await clickAndLead('buyer-gbp');
    const before = (await rows(h).sales(f.programId)).length;
    const res = await client.trackSale({
      customerExternalId: 'buyer-gbp',
      amount: 500,
      invoiceId: 'inv-gbp',
      currency: 'GBP' as Currency,
    });
    expect(res).toMatchObject({ ok: false, status: 422, code: 'unsupported_currency' });
    expect((await rows(h).sales(f.programId)).length).toBe(before);
  });

  test('429 rate_limited with the retry delay, per key', async () => {
    const limited = await createProgramFixture(h, { domain: 'shop.example', rate_limit_per_minute: 3 });
    const c = createTrackerClient({ apiKey: limited.liveKey, apiUrl: base });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await c.trackRefund({ invoiceId: `missing-${i}` }));
    expect(results.map((r) => r.status)).toEqual([404, 404, 404, 429]);
    expect(results[3]).toMatchObject({
      ok: false,
      data: null,
      code: 'rate_limited',
      error: expect.stringMatching(/^rate_limited: .+ \(retry after \d+s\)$/),
    });
    // Another program's key is not affected.
    expect((await client.trackRefund({ invoiceId: 'missing-x' })).status).toBe(404);
  });

  test('a network failure resolves with status 0 instead of throwing', async () => {
    const down = createTrackerClient({ apiKey: f.liveKey, apiUrl: `http://127.0.0.1:${await findClosedPort()}` });
    const res = await down.trackSale({ customerExternalId: 'buyer-1', amount: 100, invoiceId: 'inv-down' });
    expect(res).toMatchObject({
      ok: false,
      status: 0,
      data: null,
      code: undefined,
      error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(res.error).not.toContain(f.liveKey);
  });
});
