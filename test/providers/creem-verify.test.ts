import { describe, expect, test } from 'vitest';
import { createCreemAdapter } from '../../src/providers/creem/adapter.ts';
import { bytes, headersOf, NOW } from './fixtures/clock.ts';
import { CREEM_SECRET, creemCheckout, creemEvent, signCreem } from './fixtures/creem.ts';

const adapter = createCreemAdapter();
const body = JSON.stringify(creemEvent('checkout.completed', creemCheckout()));

function verify(rawBody: string, signature: string | undefined, secret = CREEM_SECRET) {
  return adapter.verify(bytes(rawBody), headersOf({ 'creem-signature': signature }), secret, NOW);
}

describe('creem verify', () => {
  test('a body signed with the webhook secret verifies and comes back parsed', async () => {
    expect(await verify(body, signCreem(body))).toEqual({ ok: true, event: JSON.parse(body) });
  });

  test.each([
    { label: 'no creem-signature header', signature: undefined, reason: 'missing_signature_header' },
    { label: 'digest that is not hex', signature: 'z'.repeat(64), reason: 'malformed_signature_header' },
    { label: 'digest one character short', signature: signCreem(body).slice(1), reason: 'malformed_signature_header' },
    {
      label: 'base64 instead of hex',
      signature: Buffer.from(signCreem(body), 'hex').toString('base64'),
      reason: 'malformed_signature_header',
    },
    {
      label: 'signed with another secret',
      signature: signCreem(body, 'whsec_someone_else'),
      reason: 'signature_mismatch',
    },
  ])('rejects $label → $reason', async ({ signature, reason }) => {
    expect(await verify(body, signature)).toEqual({ ok: false, reason });
  });

  test.each([
    { label: 'amount changed after signing', tampered: body.replace('"amount_paid":2999', '"amount_paid":9999') },
    { label: 'a trailing newline added after signing', tampered: `${body}\n` },
    { label: 'a space added inside the JSON', tampered: body.replace('{"id"', '{ "id"') },
    { label: 'the same JSON re-serialised with indentation', tampered: JSON.stringify(JSON.parse(body), null, 2) },
  ])('rejects a tampered body: $label', async ({ tampered }) => {
    expect(tampered).not.toBe(body);
    expect(await verify(tampered, signCreem(body))).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test('an empty secret never verifies', async () => {
    expect(await verify(body, signCreem(body, ''), '')).toEqual({ ok: false, reason: 'missing_secret' });
  });

  test('a correctly signed body that is not JSON is rejected without throwing', async () => {
    expect(await verify('hello', signCreem('hello'))).toEqual({ ok: false, reason: 'invalid_json' });
  });

  test('Creem signs without a timestamp: a delivery verifies whatever the clock says (replays collapse on the event id)', async () => {
    expect(
      (
        await adapter.verify(
          bytes(body),
          headersOf({ 'creem-signature': signCreem(body) }),
          CREEM_SECRET,
          new Date('2040-01-01T00:00:00Z'),
        )
      ).ok,
    ).toBe(true);
  });
});
