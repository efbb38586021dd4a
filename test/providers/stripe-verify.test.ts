import { describe, expect, test } from 'vitest';
import { createStripeAdapter } from '../../src/providers/stripe/adapter.ts';
import { bytes, headersOf, NOW, NOW_SECONDS } from './fixtures/clock.ts';
import { checkoutSession, signStripe, STRIPE_SECRET, stripeEvent } from './fixtures/stripe.ts';

const adapter = createStripeAdapter();
const body = JSON.stringify(stripeEvent('checkout.session.completed', checkoutSession()));

function verify(rawBody: string, signature: string | undefined, options: { secret?: string; now?: Date } = {}) {
  return adapter.verify(
    bytes(rawBody),
    headersOf({ 'Stripe-Signature': signature }),
    options.secret ?? STRIPE_SECRET,
    options.now ?? NOW,
  );
}

describe('stripe verify', () => {
  test('a body signed with the endpoint secret verifies and comes back parsed', async () => {
    const result = await verify(body, signStripe(body));
    expect(result).toEqual({ ok: true, event: JSON.parse(body) });
  });

  test.each([
    { label: 'no Stripe-Signature header', signature: undefined, reason: 'missing_signature_header' },
    { label: 'header that is not t=...,v1=...', signature: 'not-a-signature', reason: 'malformed_signature_header' },
    {
      label: 'header with a timestamp but no v1 signature',
      signature: `t=${NOW_SECONDS}`,
      reason: 'malformed_signature_header',
    },
    {
      label: 'header with only a v0 (test-mode legacy) scheme',
      signature: `t=${NOW_SECONDS},v0=abc`,
      reason: 'malformed_signature_header',
    },
    {
      label: 'signed with another endpoint secret',
      signature: signStripe(body, { secret: 'whsec_other' }),
      reason: 'signature_mismatch',
    },
  ])('rejects $label → $reason', async ({ signature, reason }) => {
    expect(await verify(body, signature)).toEqual({ ok: false, reason });
  });

  test.each([
    { label: 'amount changed after signing', tampered: body.replace('"amount_total":4900', '"amount_total":9900') },
    { label: 'a trailing newline added after signing', tampered: `${body}\n` },
    { label: 'a space added inside the JSON', tampered: body.replace('{"id"', '{ "id"') },
    { label: 'the same JSON re-serialised with indentation', tampered: JSON.stringify(JSON.parse(body), null, 2) },
  ])('rejects a tampered body: $label', async ({ tampered }) => {
    expect(await verify(tampered, signStripe(body))).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test.each([
    { label: 'exactly 300 s old is just inside the tolerance', age: 300, ok: true },
    { label: '301 s old is just outside the tolerance', age: 301, ok: false },
    // The SDK checks the age only; the adapter also refuses future skew past the same tolerance.
    { label: 'exactly 300 s ahead is just inside the tolerance', age: -300, ok: true },
    { label: '301 s ahead is just outside the tolerance', age: -301, ok: false },
    { label: 'an hour ahead is refused', age: -3600, ok: false },
  ])('$label', async ({ age, ok }) => {
    const result = await verify(body, signStripe(body, { timestamp: NOW_SECONDS - age }));
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.reason).toBe('timestamp_outside_tolerance');
  });

  test('the tolerance is measured against the injected clock, not the wall clock', async () => {
    const then = new Date('2020-01-01T00:00:00.000Z');
    const signedThen = signStripe(body, { timestamp: then.getTime() / 1000 });
    expect((await verify(body, signedThen, { now: new Date(then.getTime() + 10_000) })).ok).toBe(true);
    expect(await verify(body, signedThen)).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
  });

  test('verifies the exact bytes: a BOM prepended after signing is rejected', async () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes(body)]);
    const result = await adapter.verify(
      withBom,
      headersOf({ 'Stripe-Signature': signStripe(body) }),
      STRIPE_SECRET,
      NOW,
    );
    expect(result).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test('a body that is not UTF-8 is rejected without throwing', async () => {
    const result = await adapter.verify(
      new Uint8Array([0x7b, 0xff, 0x7d]),
      headersOf({ 'Stripe-Signature': signStripe('{?}') }),
      STRIPE_SECRET,
      NOW,
    );
    expect(result).toEqual({ ok: false, reason: 'invalid_json' });
  });

  test('an empty secret never verifies', async () => {
    expect(await verify(body, signStripe(body), { secret: '' })).toEqual({ ok: false, reason: 'missing_secret' });
  });

  test('a correctly signed body that is not JSON is rejected without throwing', async () => {
    const notJson = 'hello';
    expect(await verify(notJson, signStripe(notJson))).toEqual({ ok: false, reason: 'invalid_json' });
  });
});
