/**
 * `reportX402Settlement` on the wire, against a stand-in API: one keyed sale per payment with the
 * referral as data; a retryable failure retried, a 409 taken as recorded, every payment not
 * recorded answered with a reason and handed to `onUnreported`.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import {
  createTrackerClient,
  reportX402Settlement,
  type TrackerClient,
  type X402ReportInput,
  type X402Unreported,
} from '../../tracker/src/client.ts';
import { findClosedPort, startTestServer, type TestServer } from './test-http-server.ts';

const SALE = '/api/v1/track/sale';
const PAYER = '0x857b06519E91e3A54538791bDbb0E22373e36b66';
let server: TestServer;
let client: TrackerClient;

const input = (over: Partial<X402ReportInput> = {}): X402ReportInput => ({
  settlement: { success: true, transaction: '0xfeed', network: 'base', payer: PAYER },
  requirements: { maxAmountRequired: '2500000', resource: 'https://api.example/weather?units=metric', network: 'base' },
  ...over,
});
const platform = (status: number, code: string, message = code) => ({
  data: null,
  error: { status, name: 'Error', message, details: {}, code },
});
const attributed = { status: 200, body: { success: true, sale_id: 1, commission_id: 1, message: 'ok' } };

/** Answers the listed replies in turn, then the last one again. */
function answer(...replies: Array<{ status: number; body: unknown }>) {
  let i = 0;
  server.on('POST', SALE, () => replies[Math.min(i++, replies.length - 1)]!);
}

beforeAll(async () => {
  server = await startTestServer();
  client = createTrackerClient({ apiKey: 'sk_live_x402test', apiUrl: server.url });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

test('one keyed sale carries the payment and its referral: no click, no lead', async () => {
  answer(attributed);
  const r = await reportX402Settlement(client, input({ referral: ' jane ' }));
  expect(r).toMatchObject({ reported: true, duplicate: false, sale: { ok: true } });
  expect(server.requests.map((q) => q.path)).toEqual([SALE]);
  expect(server.calls(SALE)[0]!.headers.authorization).toBe('Bearer sk_live_x402test');
  expect(server.calls(SALE)[0]!.json).toMatchObject({
    customer_key: PAYER.toLowerCase(),
    transaction_id: '0xfeed',
    amount_cents: 250,
    provider: 'x402',
    referral_code: 'jane',
    referral_url: 'https://api.example/weather?units=metric&aff=jane',
  });
});

test('a referral no partner code could be (over 255 characters) is left out, not a reason to drop the sale', async () => {
  answer(attributed);
  const r = await reportX402Settlement(client, input({ referral: 'x'.repeat(300) }));
  expect(r.reported).toBe(true);
  expect(server.calls(SALE)[0]!.json).not.toHaveProperty('referral_code');
});

test('5xx, then success: retried with the same transaction id', async () => {
  answer({ status: 503, body: platform(503, 'service_unavailable') }, attributed);
  const r = await reportX402Settlement(client, input());
  expect(r.reported).toBe(true);
  const ids = server.calls(SALE).map((q) => (q.json as { transaction_id: string }).transaction_id);
  expect(ids).toEqual(['0xfeed', '0xfeed']);
});

test('a 409 after a lost answer is a recorded sale (spec: duplicate_transaction is a prior success)', async () => {
  answer({ status: 409, body: platform(409, 'duplicate_transaction') });
  expect(await reportX402Settlement(client, input())).toMatchObject({ reported: true, duplicate: true });
});

test.each([
  [
    'no_attribution',
    { status: 400, body: platform(400, 'no_attribution', 'no customer; the referral code "zz" names no partner') },
    { reason: 'no_attribution', retryable: false, status: 400, code: 'no_attribution' },
    1,
  ],
  [
    'window_expired',
    {
      status: 200,
      body: { success: true, attributed: false, reason: 'attribution_window_expired', sale_id: null },
    },
    { reason: 'window_expired', retryable: false, status: 200 },
    1,
  ],
  [
    'rejected',
    { status: 401, body: platform(401, 'unauthorized') },
    { reason: 'rejected', retryable: false, code: 'unauthorized' },
    1,
  ],
  [
    'unavailable (429 longer than the wait allowed)',
    { status: 429, body: { error: { code: 'rate_limited', message: 'slow down', retry_after_seconds: 30 } } },
    { reason: 'unavailable', retryable: true, status: 429, code: 'rate_limited' },
    1,
  ],
  [
    'unavailable (5xx on every attempt)',
    { status: 500, body: platform(500, 'internal_error') },
    { reason: 'unavailable', retryable: true, status: 500 },
    3,
  ],
])('not recorded, %s: the reason is answered and handed to onUnreported', async (_label, reply, expected, calls) => {
  answer(reply);
  const seen: X402Unreported[] = [];
  const r = await reportX402Settlement(client, input(), { onUnreported: (u) => seen.push(u), maxDelayMs: 100 });
  expect(r).toMatchObject({ reported: false, transaction: '0xfeed', ...expected });
  expect(seen).toEqual([r]);
  expect(server.calls(SALE)).toHaveLength(calls);
});

test('a network failure: unavailable with the error after the attempts', async () => {
  const down = createTrackerClient({
    apiKey: 'sk_live_x402test',
    apiUrl: `http://127.0.0.1:${await findClosedPort()}`,
  });
  const seen: X402Unreported[] = [];
  const r = await reportX402Settlement(down, input(), { attempts: 2, onUnreported: (u) => seen.push(u) });
  expect(r).toMatchObject({ reported: false, reason: 'unavailable', retryable: true, status: 0 });
  expect(seen).toHaveLength(1);
});

test('nothing to report is a reason too, and no call', async () => {
  const seen: string[] = [];
  const onUnreported = (u: X402Unreported) => seen.push(u.reason);
  const settlement = input().settlement;
  await reportX402Settlement(client, input({ settlement: { ...settlement, success: false } }), { onUnreported });
  await reportX402Settlement(client, input({ settlement: { ...settlement, payer: undefined } }), { onUnreported });
  const cheap = { ...input().requirements, maxAmountRequired: '9999' };
  await reportX402Settlement(client, input({ requirements: cheap }), { onUnreported });
  expect(seen).toEqual(['not_settled', 'no_payer', 'below_one_cent']);
  expect(server.requests).toHaveLength(0);
});
