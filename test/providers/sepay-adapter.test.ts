import { describe, expect, test } from 'vitest';
import { createSepayAdapter } from '../../src/providers/sepay/adapter.ts';
import { bytes, CTX, headersOf, NOW, NOW_SECONDS } from './fixtures/clock.ts';
import { SEPAY_API_KEY, sepayHmac, sepayTransfer } from './fixtures/vietqr.ts';

const adapter = createSepayAdapter();
const body = JSON.stringify(sepayTransfer());
const verify = (authorization: string | undefined, key = SEPAY_API_KEY) =>
  adapter.verify(bytes(body), headersOf({ authorization }), key, NOW);

describe('sepay verify', () => {
  test('the API key in `Authorization: Apikey <key>` verifies (any case of the scheme)', async () => {
    expect(await verify(`Apikey ${SEPAY_API_KEY}`)).toEqual({ ok: true, event: JSON.parse(body) });
    expect(await verify(`apikey  ${SEPAY_API_KEY}`)).toMatchObject({ ok: true });
  });

  test.each([
    [undefined, 'missing_signature_header'],
    [`Bearer ${SEPAY_API_KEY}`, 'malformed_signature_header'],
    ['Apikey ', 'malformed_signature_header'],
    ['Apikey wrong-key', 'signature_mismatch'],
    [`Apikey ${SEPAY_API_KEY}x`, 'signature_mismatch'],
  ])('%s → %s', async (authorization, reason) => {
    expect(await verify(authorization)).toEqual({ ok: false, reason });
  });

  test('no connected key: missing_secret', async () => {
    expect(await verify(`Apikey ${SEPAY_API_KEY}`, '')).toEqual({ ok: false, reason: 'missing_secret' });
  });
});

describe('sepay verify, HMAC-SHA256 mode', () => {
  const hmac = (headers: Record<string, string | undefined>, text = body, key = SEPAY_API_KEY) =>
    adapter.verify(bytes(text), headersOf(headers), key, NOW);

  test('`sha256=<hex>` over `<timestamp>.<raw body>` verifies, with or without the prefix', async () => {
    const signed = sepayHmac(body, NOW);
    expect(await hmac(signed)).toEqual({ ok: true, event: JSON.parse(body) });
    const bare = { ...signed, 'x-sepay-signature': signed['x-sepay-signature'].slice('sha256='.length) };
    expect(await hmac(bare)).toMatchObject({ ok: true });
  });

  test('an altered body, another secret or another timestamp is signature_mismatch', async () => {
    const signed = sepayHmac(body, NOW);
    const altered = body.replace('"transferAmount":2277000', '"transferAmount":9277000');
    expect(altered).not.toBe(body);
    expect(await hmac(signed, altered)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(await hmac(sepayHmac(body, NOW, 'another-secret'))).toEqual({ ok: false, reason: 'signature_mismatch' });
    const moved = { ...signed, 'x-sepay-timestamp': String(NOW_SECONDS + 1) };
    expect(await hmac(moved)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test('the signature wins over an Authorization header that carries the right key', async () => {
    const forged = { ...sepayHmac(body, NOW, 'another-secret'), authorization: `Apikey ${SEPAY_API_KEY}` };
    expect(await hmac(forged)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test('a genuine signature more than 5 minutes from the clock is timestamp_outside_tolerance', async () => {
    expect(await hmac(sepayHmac(body, new Date(NOW.getTime() - 300_000)))).toMatchObject({ ok: true });
    for (const offset of [-301_000, 301_000]) {
      expect(await hmac(sepayHmac(body, new Date(NOW.getTime() + offset)))).toEqual({
        ok: false,
        reason: 'timestamp_outside_tolerance',
      });
    }
  });

  test.each([
    [{ 'x-sepay-signature': 'sha256=' + 'a'.repeat(64) }, 'missing_signature_header'],
    [{ 'x-sepay-signature': 'sha256=xyz', 'x-sepay-timestamp': String(NOW_SECONDS) }, 'malformed_signature_header'],
    [
      { 'x-sepay-signature': 'sha256=' + 'a'.repeat(64), 'x-sepay-timestamp': 'yesterday' },
      'malformed_signature_header',
    ],
  ])('%j → %s', async (headers, reason) => {
    expect(await hmac(headers)).toEqual({ ok: false, reason });
  });

  test('no connected secret: missing_secret', async () => {
    expect(await hmac(sepayHmac(body, NOW), body, '')).toEqual({ ok: false, reason: 'missing_secret' });
  });
});

describe('sepay normalise', () => {
  test('an incoming transfer becomes a VND sale under sepay_<id>, its order looked up by code, else content', () => {
    const event = sepayTransfer({ code: 'DH10023', content: 'DH10023 thanh toan' });
    expect(adapter.normalise(event, CTX)).toEqual({
      dedupeKey: 'transfer.in-92704',
      eventType: 'transfer.in',
      ignoredReason: null,
      jobs: [
        expect.objectContaining({
          kind: 'sale',
          provider: 'sepay',
          transactionId: 'sepay_92704',
          providerPaymentId: 'MBVCB.3278907687',
          amountCents: 2277000,
          currency: 'VND',
          customerKey: null,
          clickId: null,
          orderLookup: { orderCode: 'DH10023', text: 'DH10023 thanh toan' },
          occurredAt: '2023-03-25T07:02:37.000Z',
        }),
      ],
    });
  });

  test('the published sample (no code) looks its order up in the content', () => {
    expect(adapter.normalise(sepayTransfer(), CTX).jobs[0]).toMatchObject({
      orderLookup: { orderCode: null, text: 'chuyen tien mua iphone' },
    });
  });

  test.each([
    [{ transferType: 'out' }, 'unhandled_event_type'],
    [{ id: null }, 'missing_transaction_id'],
    [{ code: null, content: '', description: '' }, 'missing_order_id'],
    [{ transferAmount: 0 }, 'zero_amount'],
    [{ transferAmount: 1.5 }, 'missing_amount'],
  ])('%j → %s', (fields, reason) => {
    expect(adapter.normalise(sepayTransfer(fields), CTX)).toMatchObject({ jobs: [], ignoredReason: reason });
  });

  test('SePay is answered with the acknowledgement it expects', () => {
    expect(adapter.answer).toEqual({ success: true });
  });
});
