/**
 * Polar and Dodo Payments verification (Standard Webhooks through the `standardwebhooks`
 * package): one case per failure mode, signatures computed at test time against the injected clock.
 */
import { describe, expect, test } from 'vitest';
import { createDodoAdapter } from '../../src/providers/dodo/adapter.ts';
import { createPolarAdapter } from '../../src/providers/polar/adapter.ts';
import { bytes, headersOf, NOW, NOW_SECONDS } from './fixtures/clock.ts';
import { DODO_SECRET, dodoEvent, dodoPayment, signDodo } from './fixtures/dodo.ts';
import { POLAR_SECRET, polarEvent, polarOrder, signPolar } from './fixtures/polar.ts';

const providers = [
  {
    name: 'polar',
    adapter: createPolarAdapter(),
    secret: POLAR_SECRET,
    otherSecret: 'polar_whs_someone_else_000000',
    body: JSON.stringify(polarEvent('order.paid', polarOrder())),
    amount: '"total_amount":9720',
    sign: (body: string, timestamp = NOW_SECONDS, secret?: string) => signPolar(body, { timestamp, secret }),
  },
  {
    name: 'dodo',
    adapter: createDodoAdapter(),
    secret: DODO_SECRET,
    otherSecret: `whsec_${Buffer.from('someone-else').toString('base64')}`,
    body: JSON.stringify(dodoEvent('payment.succeeded', dodoPayment())),
    amount: '"total_amount":5300',
    sign: (body: string, timestamp = NOW_SECONDS, secret?: string) => signDodo(body, { timestamp, secret }),
  },
] as const;

describe.each(providers)('$name verify', ({ adapter, secret, otherSecret, body, amount, sign }) => {
  const verify = (rawBody: string, headers: Record<string, string | undefined>, key = secret, now = NOW) =>
    adapter.verify(bytes(rawBody), headersOf(headers), key, now);

  test('a body signed at the injected clock verifies and comes back parsed', async () => {
    expect(await verify(body, sign(body))).toEqual({ ok: true, event: JSON.parse(body) });
  });

  test('several v1 signatures (the provider rotating its secret): one match is enough', async () => {
    const headers = sign(body);
    const other = sign(body, NOW_SECONDS, otherSecret)['webhook-signature'];
    expect(
      (await verify(body, { ...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}` })).ok,
    ).toBe(true);
  });

  test.each([
    { label: 'no webhook-signature header', drop: 'webhook-signature', reason: 'missing_signature_header' },
    { label: 'no webhook-id header', drop: 'webhook-id', reason: 'missing_signature_header' },
    { label: 'no webhook-timestamp header', drop: 'webhook-timestamp', reason: 'missing_signature_header' },
  ])('rejects $label → $reason', async ({ drop, reason }) => {
    expect(await verify(body, { ...sign(body), [drop]: undefined })).toEqual({ ok: false, reason });
  });

  test.each([
    {
      label: 'a timestamp that is not a number',
      headers: (h: Record<string, string>) => ({ ...h, 'webhook-timestamp': 'soon' }),
      reason: 'malformed_signature_header',
    },
    {
      label: 'a signature without its v1, prefix',
      headers: (h: Record<string, string>) => ({ ...h, 'webhook-signature': h['webhook-signature']!.slice(3) }),
      reason: 'signature_mismatch',
    },
    {
      label: 'a signature of another version',
      headers: (h: Record<string, string>) => ({
        ...h,
        'webhook-signature': h['webhook-signature']!.replace('v1,', 'v2,'),
      }),
      reason: 'signature_mismatch',
    },
    {
      label: 'garbage in the signature header',
      headers: (h: Record<string, string>) => ({ ...h, 'webhook-signature': 'garbage' }),
      reason: 'signature_mismatch',
    },
    {
      label: 'webhook-id changed after signing (it is signed)',
      headers: (h: Record<string, string>) => ({ ...h, 'webhook-id': 'msg_other' }),
      reason: 'signature_mismatch',
    },
    {
      label: 'timestamp changed after signing (it is signed)',
      headers: (h: Record<string, string>) => ({ ...h, 'webhook-timestamp': String(NOW_SECONDS - 1) }),
      reason: 'signature_mismatch',
    },
  ])('rejects $label → $reason', async ({ headers, reason }) => {
    expect(await verify(body, headers(sign(body)))).toEqual({ ok: false, reason });
  });

  test('signed with another secret → signature_mismatch', async () => {
    expect(await verify(body, sign(body, NOW_SECONDS, otherSecret))).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  test.each([
    { label: 'amount changed after signing', tampered: body.replace(amount, amount.replace(/\d+$/, '99999')) },
    { label: 'a trailing newline added after signing', tampered: `${body}\n` },
    { label: 'a space added inside the JSON', tampered: body.replace('{"', '{ "') },
    { label: 'the same JSON re-serialised with indentation', tampered: JSON.stringify(JSON.parse(body), null, 2) },
  ])('rejects a tampered body: $label', async ({ tampered }) => {
    expect(tampered).not.toBe(body);
    expect(await verify(tampered, sign(body))).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test.each([
    { label: 'exactly 300 s old is just inside the tolerance', age: 300, ok: true },
    { label: '301 s old is just outside the tolerance', age: 301, ok: false },
    { label: 'exactly 300 s in the future is just inside the tolerance', age: -300, ok: true },
    { label: '301 s in the future is just outside the tolerance', age: -301, ok: false },
  ])('$label', async ({ age, ok }) => {
    const result = await verify(body, sign(body, NOW_SECONDS - age));
    expect(result).toEqual(
      ok ? { ok: true, event: JSON.parse(body) } : { ok: false, reason: 'timestamp_outside_tolerance' },
    );
  });

  test('the tolerance follows the injected clock, not the wall clock', async () => {
    const later = new Date('2031-01-01T00:00:00Z');
    const signedThen = sign(body, Math.floor(later.getTime() / 1000));
    expect((await verify(body, signedThen, secret, later)).ok).toBe(true);
    expect(await verify(body, signedThen)).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
  });

  test('an empty secret never verifies', async () => {
    expect(await verify(body, sign(body), '')).toEqual({ ok: false, reason: 'missing_secret' });
  });

  test('a correctly signed body that is not JSON, or not UTF-8, is rejected without throwing', async () => {
    expect(await verify('hello', sign('hello'))).toEqual({ ok: false, reason: 'invalid_json' });
    const notUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect(await adapter.verify(notUtf8, headersOf(sign('{?}')), secret, NOW)).toEqual({
      ok: false,
      reason: 'invalid_json',
    });
  });
});

test('dodo: a secret that is not whsec_<base64> can never match, and says so without throwing', async () => {
  const body = JSON.stringify(dodoEvent('payment.succeeded', dodoPayment()));
  expect(
    await createDodoAdapter().verify(
      bytes(body),
      headersOf(signDodo(body, { timestamp: NOW_SECONDS })),
      'whsec_%%%not-base64%%%',
      NOW,
    ),
  ).toEqual({ ok: false, reason: 'missing_secret' });
});
