/**
 * The Tolt reader against a fake of Tolt's v1 API (fakes/tolt.ts) serving the fixture program:
 * exactly the expected records in dependency order, across pages; a wrong key is a clear error;
 * a 429 is waited out and asked again; a row it cannot read is a problem, not dropped.
 */
import { afterEach, expect, test } from 'vitest';
import { createToltReader } from '../../src/importers/tolt/index.ts';
import { startFakeTolt } from './fakes/tolt.ts';
import type { FakeSource } from './fakes/fake-server.ts';
import { toltFixture, PROGRAM } from './fixtures/tolt/api.ts';
import { expectedCodes, expectedCounts, expectedDue, expectedRecords } from './fixtures/tolt/expected.ts';
import { codesByPartner, countsByKind, dueByPartner, inDependencyOrder, readAll } from './read-all.ts';

const KEY = 'tolt_test_key_1';
let fake: FakeSource | undefined;
afterEach(() => fake?.close());

test('reads the fixture program, page by page, as exactly the expected records', async () => {
  fake = await startFakeTolt(toltFixture, { key: KEY });
  const reader = createToltReader({ apiKey: `${PROGRAM}:${KEY}`, baseUrl: fake.url });
  const records = await readAll(reader);
  expect(records).toEqual(expectedRecords);
  expect(countsByKind(records)).toEqual(expectedCounts);
  expect(codesByPartner(records)).toEqual(expectedCodes);
  expect(dueByPartner(records)).toEqual(expectedDue);
  expect(inDependencyOrder(records)).toBe(true);
  // Five customers at two a page: three requests, the later ones after the last id read.
  const customerPages = fake.requests.filter((r) => r.path === '/v1/customers');
  expect(customerPages.map((r) => r.query.get('starting_after'))).toEqual([
    null,
    'cust_2bbbbbbbbbbbbbbbbbbbbbbb',
    'cust_4ddddddddddddddddddddddd',
  ]);
  expect(await readAll(reader)).toEqual(records);
  expect(await reader.balances()).toBeNull();
});

test('a wrong key is refused with a message naming Tolt and what it said', async () => {
  fake = await startFakeTolt(toltFixture, { key: KEY });
  const reader = createToltReader({ apiKey: `${PROGRAM}:wrong`, baseUrl: fake.url });
  await expect(readAll(reader)).rejects.toThrow(/Tolt refused the API key \(401: Invalid API key provided\)/);
  expect(() => createToltReader({ apiKey: KEY })).toThrow(/<program id>:<API key>/);
  // No source publishes its CSV layout: a file is refused, not guessed at.
  expect(() => createToltReader({ apiKey: `${PROGRAM}:${KEY}`, csv: { 'commissions.csv': 'id,amount' } })).toThrow(
    /publishes no layout for its CSV exports/,
  );
});

test('a 429 is waited out for its Retry-After, then the same page is asked again', async () => {
  fake = await startFakeTolt(toltFixture, { key: KEY });
  fake.rateLimitOnce('/v1/commissions', 1);
  const records = await readAll(createToltReader({ apiKey: `${PROGRAM}:${KEY}`, baseUrl: fake.url }));
  expect(records).toEqual(expectedRecords);
  const asked = fake.requests.filter((r) => r.path === '/v1/commissions' && !r.query.get('starting_after'));
  expect(asked).toHaveLength(2);
  expect(asked[1]!.at - asked[0]!.at).toBeGreaterThanOrEqual(900);
});

test('a row it cannot read becomes a problem with a plain reason, the rest still read', async () => {
  const broken = structuredClone(toltFixture);
  broken.commissions[1]!.amount = '14.70';
  broken.commissions[2]!.status = 'on_hold';
  broken.customers.push({ ...broken.customers[0]!, id: 'cust_orphan', partner_id: 'part_unknown' });
  broken.commissions[3]!.payout_id = null;
  fake = await startFakeTolt(broken, { key: KEY });
  const records = await readAll(createToltReader({ apiKey: `${PROGRAM}:${KEY}`, baseUrl: fake.url }));
  const problems = records.filter((r) => r.kind === 'problem');
  expect(problems).toEqual([
    { kind: 'problem', of: 'customer', sourceId: 'cust_orphan', reason: 'names no imported partner' },
    {
      kind: 'problem',
      of: 'commission',
      sourceId: 'comm_2ApprovedBBBBBBBBBBBBBBB',
      reason: 'the amount "14.70" is not a whole number of cents',
    },
    {
      kind: 'problem',
      of: 'commission',
      sourceId: 'comm_3PaidCCCCCCCCCCCCCCCCCC',
      reason: 'unknown Tolt status "on_hold"',
    },
    {
      kind: 'problem',
      of: 'payout',
      sourceId: 'comm_4PaidDDDDDDDDDDDDDDDDDD',
      reason: 'a paid commission names no Tolt payout: it comes without one',
    },
  ]);
  expect(countsByKind(records)).toEqual({ partner: 4, customer: 5, commission: 5, problem: 4 });
  expect(inDependencyOrder(records)).toBe(true);
});
