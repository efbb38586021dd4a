/**
 * The Dub reader against a fake of Dub's API (fakes/dub.ts): exactly the expected records across
 * numbered pages; a wrong key is a clear error; a 429 is waited out; an unreadable row is a
 * problem, not dropped.
 */
import { afterEach, expect, test } from 'vitest';
import { createDubReader } from '../../src/importers/dub/index.ts';
import { startFakeDub } from './fakes/dub.ts';
import type { FakeSource } from './fakes/fake-server.ts';
import { dubFixture } from './fixtures/dub/api.ts';
import { expectedCodes, expectedCounts, expectedDue, expectedRecords } from './fixtures/dub/expected.ts';
import { codesByPartner, countsByKind, dueByPartner, inDependencyOrder, readAll } from './read-all.ts';

const KEY = 'dub_test_key_1';
let fake: FakeSource | undefined;
afterEach(() => fake?.close());

test('reads the fixture program, page by page, as exactly the expected records', async () => {
  fake = await startFakeDub(dubFixture, { key: KEY });
  const reader = createDubReader({ apiKey: KEY, baseUrl: fake.url });
  const records = await readAll(reader);
  expect(records).toEqual(expectedRecords);
  expect(countsByKind(records)).toEqual(expectedCounts);
  expect(codesByPartner(records)).toEqual(expectedCodes);
  expect(dueByPartner(records)).toEqual(expectedDue);
  expect(inDependencyOrder(records)).toBe(true);
  // Eight commissions at three a page: pages 1 to 3, then an empty page 4 ends the list.
  expect(fake.requests.filter((r) => r.path === '/commissions').map((r) => r.query.get('page'))).toEqual([
    '1',
    '2',
    '3',
    '4',
  ]);
  expect(await reader.balances()).toBeNull();
});

test('a wrong key is refused with a message naming Dub and what it said', async () => {
  fake = await startFakeDub(dubFixture, { key: KEY });
  const reader = createDubReader({ apiKey: 'dub_wrong', baseUrl: fake.url });
  await expect(readAll(reader)).rejects.toThrow(/Dub refused the API key \(401: Unauthorized: Invalid API key\.\)/);
  expect(() => createDubReader({})).toThrow(/Dub needs an API key/);
  // No source publishes its CSV layout: a file is refused, not guessed at.
  expect(() => createDubReader({ apiKey: KEY, csv: { 'commissions.csv': 'id,earnings' } })).toThrow(
    /publishes no layout for its CSV exports/,
  );
});

test('a 429 is waited out for its Retry-After, then the same page is asked again', async () => {
  fake = await startFakeDub(dubFixture, { key: KEY });
  fake.rateLimitOnce('/payouts', 1);
  const records = await readAll(createDubReader({ apiKey: KEY, baseUrl: fake.url }));
  expect(records).toEqual(expectedRecords);
  const first = fake.requests.filter((r) => r.path === '/payouts' && r.query.get('page') === '1');
  expect(first).toHaveLength(2);
  expect(first[1]!.at - first[0]!.at).toBeGreaterThanOrEqual(900);
});

test('a row it cannot read becomes a problem with a plain reason, the rest still read', async () => {
  const broken = structuredClone(dubFixture);
  (broken.commissions[1] as Record<string, unknown>).earnings = 30.5;
  broken.commissions[2]!.status = 'on_hold';
  (broken.payouts[0] as Record<string, unknown>).currency = null;
  fake = await startFakeDub(broken, { key: KEY });
  const records = await readAll(createDubReader({ apiKey: KEY, baseUrl: fake.url }));
  expect(records.filter((r) => r.kind === 'problem').map((r) => [r.of, r.sourceId, r.reason])).toEqual([
    ['customer', 'cus_1K0C6', 'referred by no partner (a customer of a plain short link)'],
    ['commission', 'cm_1K0A000002', 'the earnings "30.5" are not a whole number of cents'],
    ['commission', 'cm_1K0A000003', 'unknown Dub status "on_hold"'],
    ['payout', 'po_1K0P0001', 'states no currency'],
  ]);
  expect(inDependencyOrder(records)).toBe(true);
});
