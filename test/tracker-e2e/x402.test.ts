/**
 * x402 end to end: a resource server answers 402 with its payment requirements, the client pays
 * (an `X-PAYMENT` header), the resource server has a facilitator settle it and reports the
 * settlement through the server client's `reportX402Settlement` with the referral the request
 * carried (`X-Referral`); the service records the sale under the payer and the referring partner
 * earns the commission. No network and no chain here: a local HTTP server stands in for the
 * facilitator's `/settle` and answers a `SettleResponse` of the x402 spec's shape (x402@1.x
 * `SettleResponseSchema`: success, transaction, network, payer).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  createTrackerClient,
  decodeX402PaymentResponse,
  reportX402Settlement,
  x402Cents,
  x402ReferralOf,
  type TrackerClient,
  type X402ReportResult,
} from '../../tracker/src/client.ts';
import { createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';

const PAYER = '0x857b06519E91e3A54538791bDbb0E22373e36b66';
let h: Harness;
let f: Fixture;
let client: TrackerClient;
let resource: Server;
let facilitator: Server;
let resourceUrl = '';
const reports: X402ReportResult[] = [];
let settled = 0;

const listen = async (s: Server) => {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  h = await createHarness();
  const base = await h.listen();
  f = await createProgramFixture(h, { domain: '127.0.0.1', commission_rate_bps: 2000 });
  client = createTrackerClient({ apiKey: f.liveKey, apiUrl: base });
  facilitator = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { paymentRequirements } = JSON.parse(body);
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          success: true,
          transaction: `0x${(++settled).toString(16).padStart(64, 'a')}`,
          network: paymentRequirements.network,
          payer: PAYER,
        }),
      );
    });
  });
  const facilitatorUrl = await listen(facilitator);
  resource = createServer(async (req, res) => {
    const requirements = {
      scheme: 'exact',
      network: 'base-sepolia',
      maxAmountRequired: '2500000', // 2.50 USDC (6 decimals)
      resource: resourceUrl + (req.url ?? '/'),
      description: 'Weather report',
      mimeType: 'application/json',
      payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
      maxTimeoutSeconds: 60,
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      extra: { name: 'USDC', version: '2' },
    };
    const payment = req.headers['x-payment'];
    if (!payment) {
      res.statusCode = 402;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [requirements] }));
      return;
    }
    const settle = await fetch(`${facilitatorUrl}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x402Version: 1, paymentPayload: payment, paymentRequirements: requirements }),
    });
    const settlement = await settle.json();
    const header = Buffer.from(JSON.stringify(settlement)).toString('base64');
    const request = new Request(resourceUrl + (req.url ?? '/'), { headers: req.headers as Record<string, string> });
    reports.push(
      await reportX402Settlement(client, {
        settlement: decodeX402PaymentResponse(header),
        requirements,
        referral: x402ReferralOf(request),
      }),
    );
    res.setHeader('x-payment-response', header);
    res.end(JSON.stringify({ forecast: 'sunny' }));
  });
  resourceUrl = await listen(resource);
});
afterAll(async () => {
  resource?.close();
  facilitator?.close();
  await h?.close();
});

test('a paid request with a referral: the payer becomes the partner customer and the payment a commission', async () => {
  const unpaid = await fetch(`${resourceUrl}/weather`);
  expect(unpaid.status).toBe(402);
  const paid = await fetch(`${resourceUrl}/weather`, {
    headers: { 'x-payment': 'eyJ4NDAyVmVyc2lvbiI6MX0=', 'x-referral': f.partnerCode },
  });
  expect(paid.status).toBe(200);
  expect(decodeX402PaymentResponse(paid.headers.get('x-payment-response')!)).toMatchObject({ payer: PAYER });
  const [report] = reports;
  expect(report).toMatchObject({ reported: true, sale: { ok: true, data: { commission_id: expect.any(Number) } } });
  const { sales } = await h.admin('GET', `/programs/${f.programId}/sales`);
  expect(sales[0]).toMatchObject({ amount_cents: 250, currency: 'USD', provider: 'x402', partner: f.partnerId });
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
  expect(commissions[0]).toMatchObject({ amount_cents: 50, partner: f.partnerId, status: 'pending' });
  const { customers } = await h.admin('GET', `/programs/${f.programId}/customers`);
  expect(customers.map((c: { customer_key: string }) => c.customer_key)).toEqual([PAYER.toLowerCase()]);

  // The same agent pays again later without a referral: still that partner's customer.
  const again = await fetch(`${resourceUrl}/weather?units=metric`, { headers: { 'x-payment': 'eyJ4In0=' } });
  expect(again.status).toBe(200);
  expect(reports[1]).toMatchObject({ reported: true, sale: { ok: true, data: { commission_id: expect.any(Number) } } });
  expect((await h.admin('GET', `/programs/${f.programId}/commissions`)).commissions).toHaveLength(2);
});

test('amounts: atomic units to cents, rounded down; less than a cent and unsettled payments are not reported', async () => {
  expect(x402Cents('2500000', 6)).toBe(250);
  expect(x402Cents('9999', 6)).toBe(0);
  expect(x402Cents('123', 0)).toBe(12_300);
  expect(() => x402Cents('1.5', 6)).toThrow(RangeError);
  const requirements = { maxAmountRequired: '9999', resource: `${resourceUrl}/x`, network: 'base' };
  const settlement = { success: true, transaction: '0xabc', network: 'base', payer: PAYER };
  expect(await reportX402Settlement(client, { settlement, requirements })).toEqual({
    reported: false,
    reason: 'below_one_cent',
    retryable: false,
    transaction: '0xabc',
  });
  expect(await reportX402Settlement(client, { settlement: { ...settlement, success: false }, requirements })).toEqual({
    reported: false,
    reason: 'not_settled',
    retryable: false,
    transaction: '0xabc',
  });
  expect(x402ReferralOf(new Request('https://api.example/w?ref=jane'))).toBe('jane');
});
