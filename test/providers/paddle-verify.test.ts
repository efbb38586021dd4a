import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { createPaddleAdapter } from '../../src/providers/paddle/adapter.ts';
import { bytes, headersOf, NOW, NOW_SECONDS } from './fixtures/clock.ts';
import { PADDLE_SECRET, paddleEvent, paddleHmac, paddleTransaction, signPaddle } from './fixtures/paddle.ts';

const adapter = createPaddleAdapter();
const body = JSON.stringify(paddleEvent('transaction.completed', paddleTransaction()));

function verify(rawBody: string, signature: string | undefined, options: { secret?: string; now?: Date } = {}) {
  return adapter.verify(
    bytes(rawBody),
    headersOf({ 'Paddle-Signature': signature }),
    options.secret ?? PADDLE_SECRET,
    options.now ?? NOW,
  );
}

describe('paddle verify', () => {
  test('a body signed with the destination secret verifies and comes back parsed', async () => {
    expect(await verify(body, signPaddle(body))).toEqual({ ok: true, event: JSON.parse(body) });
  });

  test('during secret rotation Paddle sends several h1 values; one match is enough', async () => {
    const rotating = `ts=${NOW_SECONDS};h1=${paddleHmac(body, NOW_SECONDS, 'old_secret')};h1=${paddleHmac(body, NOW_SECONDS)}`;
    expect((await verify(body, rotating)).ok).toBe(true);
  });

  test.each([
    { label: 'no Paddle-Signature header', signature: undefined, reason: 'missing_signature_header' },
    { label: 'header without key=value parts', signature: 'garbage', reason: 'malformed_signature_header' },
    { label: 'header without h1', signature: `ts=${NOW_SECONDS}`, reason: 'malformed_signature_header' },
    {
      label: 'header without ts',
      signature: `h1=${paddleHmac(body, NOW_SECONDS)}`,
      reason: 'malformed_signature_header',
    },
    {
      label: 'non-numeric ts',
      signature: `ts=soon;h1=${paddleHmac(body, NOW_SECONDS)}`,
      reason: 'malformed_signature_header',
    },
    {
      label: 'two ts values',
      signature: `ts=${NOW_SECONDS};ts=${NOW_SECONDS};h1=${paddleHmac(body, NOW_SECONDS)}`,
      reason: 'malformed_signature_header',
    },
    { label: 'h1 that is not hex', signature: `ts=${NOW_SECONDS};h1=not-hex`, reason: 'signature_mismatch' },
    {
      label: 'h1 truncated',
      signature: `ts=${NOW_SECONDS};h1=${paddleHmac(body, NOW_SECONDS).slice(0, 40)}`,
      reason: 'signature_mismatch',
    },
    {
      label: 'signed with another secret',
      signature: signPaddle(body, { secret: 'pdl_ntfset_other' }),
      reason: 'signature_mismatch',
    },
    {
      label: 'ts changed after signing (ts is part of the signed payload)',
      signature: `ts=${NOW_SECONDS - 1};h1=${paddleHmac(body, NOW_SECONDS)}`,
      reason: 'signature_mismatch',
    },
  ])('rejects $label → $reason', async ({ signature, reason }) => {
    expect(await verify(body, signature)).toEqual({ ok: false, reason });
  });

  test.each([
    { label: 'amount changed after signing', tampered: body.replace('"total":"4900"', '"total":"9900"') },
    { label: 'a trailing newline added after signing', tampered: `${body}\n` },
    { label: 'a space added inside the JSON', tampered: body.replace('{"event_id"', '{ "event_id"') },
    { label: 'the same JSON re-serialised with indentation', tampered: JSON.stringify(JSON.parse(body), null, 2) },
  ])('rejects a tampered body: $label', async ({ tampered }) => {
    expect(await verify(tampered, signPaddle(body))).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  test.each([
    { label: 'exactly 300 s old is just inside the tolerance', age: 300, ok: true },
    { label: '301 s old is just outside the tolerance', age: 301, ok: false },
    { label: 'exactly 300 s ahead (clock skew) is just inside', age: -300, ok: true },
    { label: '301 s ahead is just outside', age: -301, ok: false },
  ])('$label', async ({ age, ok }) => {
    const result = await verify(body, signPaddle(body, { ts: NOW_SECONDS - age }));
    expect(result).toEqual(
      ok ? { ok: true, event: JSON.parse(body) } : { ok: false, reason: 'timestamp_outside_tolerance' },
    );
  });

  test('the tolerance is measured against the injected clock, not the wall clock', async () => {
    const then = new Date('2020-01-01T00:00:00.000Z');
    const signedThen = signPaddle(body, { ts: then.getTime() / 1000 });
    expect((await verify(body, signedThen, { now: new Date(then.getTime() + 4_000) })).ok).toBe(true);
    expect(await verify(body, signedThen)).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
  });

  test('an empty secret never verifies', async () => {
    expect(await verify(body, signPaddle(body, { secret: '' }), { secret: '' })).toEqual({
      ok: false,
      reason: 'missing_secret',
    });
  });

  test.each([
    { label: 'not JSON', raw: 'hello' },
    { label: 'a JSON array, not an event object', raw: '[1,2]' },
  ])('a correctly signed body that is $label is rejected without throwing', async ({ raw }) => {
    expect(await verify(raw, signPaddle(raw))).toEqual({ ok: false, reason: 'invalid_json' });
  });

  test('verifies the exact bytes: invalid UTF-8 in the body is signed over and then rejected as JSON', async () => {
    const raw = new Uint8Array([0x7b, 0xff, 0x7d]);
    const h1 = createHmac('sha256', PADDLE_SECRET).update(`${NOW_SECONDS}:`).update(raw).digest('hex');
    const result = await adapter.verify(
      raw,
      headersOf({ 'Paddle-Signature': `ts=${NOW_SECONDS};h1=${h1}` }),
      PADDLE_SECRET,
      NOW,
    );
    expect(result).toEqual({ ok: false, reason: 'invalid_json' });
  });
});
