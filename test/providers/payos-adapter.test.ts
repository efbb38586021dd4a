import { describe, expect, test } from 'vitest';
import { PayOS } from '@payos/node';
import { createPayosAdapter } from '../../src/providers/payos/adapter.ts';
import { redactPersonalData } from '../../src/core/webhooks/redact-personal-data.ts';
import { bytes, CTX, headersOf, NOW } from './fixtures/clock.ts';
import { loadPublished } from './fixtures/published.ts';
import { PAYOS_CHECKSUM_KEY, payosRepartition, payosSignature, payosWebhook } from './fixtures/vietqr.ts';

const adapter = createPayosAdapter();
const verify = (body: string, key = PAYOS_CHECKSUM_KEY) => adapter.verify(bytes(body), headersOf({}), key, NOW);
const paid = (data: Record<string, unknown> = {}) =>
  payosWebhook({ orderCode: 10023, description: 'DH10023', reference: 'FT25330123456', amount: 250000, ...data });

describe('payos verify', () => {
  test("the test signer agrees with the SDK's own verification", async () => {
    const body = paid();
    const sdk = new PayOS({ clientId: 'x', apiKey: 'x', checksumKey: PAYOS_CHECKSUM_KEY, logLevel: 'off' });
    await expect(sdk.webhooks.verify(body as any)).resolves.toMatchObject({ orderCode: 10023 });
  });

  test('a body signed with the checksum key verifies and parses', async () => {
    const body = JSON.stringify(paid());
    expect(await verify(body)).toEqual({ ok: true, event: JSON.parse(body) });
  });

  test('another checksum key, an amount changed after signing, or no signature are rejected', async () => {
    expect(await verify(JSON.stringify(paid()), 'another-checksum-key')).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    const altered = paid();
    (altered.data as Record<string, unknown>).amount = 25_000_000;
    expect(await verify(JSON.stringify(altered))).toEqual({ ok: false, reason: 'signature_mismatch' });
    const { signature: _s, ...unsigned } = paid();
    expect(await verify(JSON.stringify(unsigned))).toEqual({ ok: false, reason: 'missing_signature_header' });
    expect(await verify(JSON.stringify({ ...paid(), signature: 'zz' }))).toEqual({
      ok: false,
      reason: 'malformed_signature_header',
    });
    expect(await verify('not json')).toEqual({ ok: false, reason: 'invalid_json' });
    expect(await verify(JSON.stringify(paid()), '')).toEqual({ ok: false, reason: 'missing_secret' });
  });
});

describe('payos signed text read one way only', () => {
  test.each([
    ['reference swallows transactionDateTime', 'reference', 1],
    ['reference swallows transactionDateTime and virtualAccountName', 'reference', 2],
    ['description swallows orderCode', 'description', 1],
    ['accountNumber swallows amount', 'accountNumber', 1],
  ])('%s: the same signed text, refused before the signature counts', async (_label, field, absorbed) => {
    const forged = payosRepartition(paid(), field, absorbed);
    // The forgery is real: PayOS's own SDK accepts the altered data under the original signature.
    const sdk = new PayOS({ clientId: 'x', apiKey: 'x', checksumKey: PAYOS_CHECKSUM_KEY, logLevel: 'off' });
    await expect(sdk.webhooks.verify(forged as any)).resolves.toMatchObject({ [field]: expect.stringContaining('&') });
    expect(await verify(JSON.stringify(forged))).toEqual({ ok: false, reason: 'ambiguous_signed_fields' });
  });

  test.each([
    ['an object value (signs as "[object Object]")', { reference: { id: 'FT1' } }],
    ['an array value', { reference: ['FT1'] }],
    ['the string "null" (signs as an absent value)', { reference: 'null' }],
    ['the string "undefined"', { counterAccountName: 'undefined' }],
    ['a key that is not a field name', { 'x&y': '1' }],
  ])('%s is refused even when signed', async (_label, fields) => {
    expect(await verify(JSON.stringify(paid(fields)))).toEqual({ ok: false, reason: 'ambiguous_signed_fields' });
  });

  test.each([
    ['an ampersand in a payer name', { counterAccountName: 'CONG TY A&B' }],
    ['an equals sign in a description', { description: 'DH10023 a=b' }],
    ['an ampersand not followed by a field name', { description: 'DH10023 & =x &1=2' }],
    ['empty strings and nulls', { counterAccountBankId: '', virtualAccountName: null }],
  ])('%s still verifies', async (_label, fields) => {
    expect(await verify(JSON.stringify(paid(fields)))).toMatchObject({ ok: true });
  });
});

describe('payos normalise', () => {
  test('a paid notification becomes a VND sale under the transfer reference, its customer looked up by orderCode', () => {
    const event = paid();
    expect(adapter.normalise(event, CTX)).toEqual({
      dedupeKey: 'payment-10023-FT25330123456',
      eventType: 'payment',
      ignoredReason: null,
      jobs: [
        expect.objectContaining({
          kind: 'sale',
          origin: 'provider',
          provider: 'payos',
          programId: CTX.programId,
          transactionId: 'FT25330123456',
          providerPaymentId: '124c33293c43417ab7879e14c8d9eb18',
          amountCents: 250000,
          currency: 'VND',
          customerKey: null,
          clickId: null,
          orderLookup: { orderCode: '10023', text: null },
          occurredAt: '2023-02-04T11:25:00.000Z',
        }),
      ],
    });
  });

  test("PayOS's webhook-confirmation sample (the published payload) is ignored", () => {
    expect(adapter.normalise(loadPublished('payos', 'webhook'), CTX)).toMatchObject({
      jobs: [],
      ignoredReason: 'webhook_confirmation',
    });
  });

  test.each([
    [{ code: '01' }, 'not_paid'],
    [{ orderCode: null }, 'missing_order_id'],
    [{ reference: '' }, 'missing_transaction_id'],
    [{ amount: 0 }, 'zero_amount'],
    [{ amount: '250000' }, 'missing_amount'],
  ])('%j → %s', (data, reason) => {
    expect(adapter.normalise(paid(data), CTX)).toMatchObject({ jobs: [], ignoredReason: reason });
  });

  test('a connection test secret makes a test sale; a body without code and data is unhandled', () => {
    expect(adapter.normalise(paid(), { ...CTX, testConnection: true }).jobs[0]).toMatchObject({ test: true });
    expect(adapter.normalise({ data: { orderCode: 1 } }, CTX).ignoredReason).toBe('unhandled_event_type');
  });

  test('the signature covers every data field the SDK sorts, including ones PayOS may add', () => {
    const data = { ...(paid().data as Record<string, unknown>), newField: 'x' };
    expect(payosSignature(data)).not.toBe(payosSignature({ ...data, newField: 'y' }));
  });
});

test("the retention sweep removes the payer's bank account from a stored PayOS payload, and keeps the order", () => {
  const event = paid({ counterAccountName: 'NGUYEN VAN A', counterAccountNumber: '0123456789' });
  const redacted = redactPersonalData(event) as { data: Record<string, unknown> };
  expect(redacted.data).toMatchObject({
    counterAccountName: '[redacted]',
    counterAccountNumber: '[redacted]',
    orderCode: 10023,
    reference: 'FT25330123456',
  });
});
