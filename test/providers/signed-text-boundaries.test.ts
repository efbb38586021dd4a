/**
 * The forged-PayOS class, tried on every provider that signs concatenated parts: keep the signed
 * text (and so the signature) and move a boundary between its parts — header into body, body into
 * header, one header into another. Each scheme must refuse every such re-reading; PayOS's own
 * field-level case is in payos-adapter.test.ts. Lemon Squeezy and Creem sign the body alone (no
 * boundary to move). Signatures are computed here with Node's crypto over the scheme's text as
 * each provider documents it, then the parts are split differently.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { createPaddleAdapter } from '../../src/providers/paddle/adapter.ts';
import { createSepayAdapter } from '../../src/providers/sepay/adapter.ts';
import { createStripeAdapter } from '../../src/providers/stripe/adapter.ts';
import { createPolarAdapter } from '../../src/providers/polar/adapter.ts';
import { bytes, headersOf, NOW, NOW_SECONDS } from './fixtures/clock.ts';
import { POLAR_SECRET } from './fixtures/polar.ts';

const SECRET = 'boundary-test-secret-0123456789';
const BODY = JSON.stringify({ id: 'evt_1', type: 'sale.paid', data: { amount: 100, note: 'a:b.c' } });
const hex = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');

/**
 * Every other reading of `<head><sep><body>` with the same text: the separator taken at a later
 * occurrence, inside the body (the head is digits, so it holds none). The first three are enough.
 */
function rereadings(head: string, sep: string, body: string): Array<[number, string, string]> {
  const out: Array<[number, string, string]> = [];
  for (let at = body.indexOf(sep); at >= 0 && out.length < 3; at = body.indexOf(sep, at + 1))
    out.push([at, `${head}${sep}${body.slice(0, at)}`, body.slice(at + 1)]);
  return out;
}

describe.each([
  {
    name: 'Paddle (`ts:body`)',
    adapter: createPaddleAdapter(),
    sep: ':',
    headers: (ts: string, text: string) => ({ 'paddle-signature': `ts=${ts};h1=${hex(SECRET, text)}` }),
  },
  {
    name: 'SePay HMAC (`timestamp.body`)',
    adapter: createSepayAdapter(),
    sep: '.',
    headers: (ts: string, text: string) => ({
      'x-sepay-timestamp': ts,
      'x-sepay-signature': `sha256=${hex(SECRET, text)}`,
    }),
  },
  {
    name: 'Stripe (`t.body`)',
    adapter: createStripeAdapter(),
    sep: '.',
    headers: (ts: string, text: string) => ({ 'stripe-signature': `t=${ts},v1=${hex(SECRET, text)}` }),
  },
])('$name', ({ adapter, sep, headers }) => {
  const ts = String(NOW_SECONDS);
  const text = `${ts}${sep}${BODY}`;
  const verify = (head: string, body: string) =>
    adapter.verify(bytes(body), headersOf(headers(head, text)), SECRET, NOW);

  test('the genuine split verifies (the signer below is the scheme)', async () => {
    expect(await verify(ts, BODY)).toMatchObject({ ok: true });
  });

  test.each(rereadings(ts, sep, BODY))('separator taken at body offset %i: refused', async (_at, head, body) => {
    expect(`${head}${sep}${body}`).toBe(text);
    expect(await verify(head, body)).toMatchObject({ ok: false });
  });
});

describe('Standard Webhooks (`id.timestamp.body`, Polar and Dodo)', () => {
  const adapter = createPolarAdapter();
  const key = Buffer.from(POLAR_SECRET, 'utf8');
  const sign = (text: string) => `v1,${createHmac('sha256', key).update(text).digest('base64')}`;
  const verify = (id: string, ts: string, body: string, text: string) =>
    adapter.verify(
      bytes(body),
      headersOf({ 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sign(text) }),
      POLAR_SECRET,
      NOW,
    );
  const ts = String(NOW_SECONDS);
  const dot = BODY.indexOf('.');

  test('the genuine split verifies', async () => {
    expect(await verify('msg_1', ts, BODY, `msg_1.${ts}.${BODY}`)).toMatchObject({ ok: true });
  });

  // A provider id holding `.<digits>` (`msg.<ts>`) read with the id cut at its dot, and the
  // timestamp read on into the body: the same text, another split.
  test.each([
    ['id cut at its dot, its tail read as the timestamp', 'msg', ts, `${ts}.${BODY}`, `msg.${ts}.${ts}.${BODY}`],
    [
      'timestamp read on into the body',
      'msg_1',
      `${ts}.${BODY.slice(0, dot)}`,
      BODY.slice(dot + 1),
      `msg_1.${ts}.${BODY}`,
    ],
  ])('%s: refused', async (_label, id, timestamp, body, text) => {
    expect(`${id}.${timestamp}.${body}`).toBe(text);
    expect(await verify(id, timestamp, body, text)).toMatchObject({ ok: false });
  });
});
