import { describe, expect, test } from 'vitest';
import { createSepayAdapter } from '../../src/providers/sepay/adapter.ts';
import { bytes, CTX, headersOf, NOW } from './fixtures/clock.ts';
import { SEPAY_API_KEY, sepayTransfer } from './fixtures/vietqr.ts';

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
