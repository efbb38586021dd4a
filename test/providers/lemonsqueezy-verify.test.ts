import { describe, expect, test } from 'vitest';
import { createLemonSqueezyAdapter } from '../../src/providers/lemonsqueezy/adapter.ts';
import { bytes, headersOf, NOW } from './fixtures/clock.ts';
import {
  LEMONSQUEEZY_SECRET,
  lemonSqueezyEvent,
  lemonSqueezyOrder,
  signLemonSqueezy,
} from './fixtures/lemonsqueezy.ts';

const adapter = createLemonSqueezyAdapter();
const body = JSON.stringify(lemonSqueezyEvent('order_created', lemonSqueezyOrder()));

function verify(rawBody: string, signature: string | undefined, secret = LEMONSQUEEZY_SECRET) {
  return adapter.verify(
    bytes(rawBody),
    headersOf({ 'X-Signature': signature, 'X-Event-Name': 'order_created' }),
    secret,
    NOW,
  );
}

describe('lemon squeezy verify', () => {
  test('a body signed with the webhook secret verifies and comes back parsed', async () => {
    expect(await verify(body, signLemonSqueezy(body))).toEqual({ ok: true, event: JSON.parse(body) });
  });

  test('an upper-case hex digest is the same digest', async () => {
    expect((await verify(body, signLemonSqueezy(body).toUpperCase())).ok).toBe(true);
  });

  test.each([
    { label: 'no X-Signature header', signature: undefined, reason: 'missing_signature_header' },
    { label: 'digest that is not hex', signature: 'z'.repeat(64), reason: 'malformed_signature_header' },
    {
      label: 'digest one character short',
      signature: signLemonSqueezy(body).slice(1),
      reason: 'malformed_signature_header',
    },
    {
      label: 'digest with a sha256= prefix',
      signature: `sha256=${signLemonSqueezy(body)}`,
      reason: 'malformed_signature_header',
    },
    {
      label: 'base64 instead of hex',
      signature: Buffer.from(signLemonSqueezy(body), 'hex').toString('base64'),
      reason: 'malformed_signature_header',
    },
    {
      label: 'signed with another secret',
      signature: signLemonSqueezy(body, 'another_secret'),
      reason: 'signature_mismatch',
    },
  ])('rejects $label → $reason', async ({ signature, reason }) => {
    expect(await verify(body, signature)).toEqual({ ok: false, reason });
  });

  test.each([
    { label: 'total changed after signing', tampered: body.replace('"total":4900', '"total":9900') },
    { label: 'a trailing newline added after signing', tampered: `${body}\n` },
    { label: 'a space added inside the JSON', tampered: body.replace('{"meta"', '{ "meta"') },
    { label: 'the same JSON re-serialised with indentation', tampered: JSON.stringify(JSON.parse(body), null, 2) },
  ])('rejects a tampered body: $label', async ({ tampered }) => {
    expect(await verify(tampered, signLemonSqueezy(body))).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test('an empty secret never verifies', async () => {
    expect(await verify(body, signLemonSqueezy(body, ''), '')).toEqual({ ok: false, reason: 'missing_secret' });
  });

  test('a correctly signed body that is not JSON is rejected without throwing', async () => {
    expect(await verify('hello', signLemonSqueezy('hello'))).toEqual({ ok: false, reason: 'invalid_json' });
  });
});
