/**
 * The FirstPromoter reader against a fake of its admin API v2 (fakes/firstpromoter.ts): exactly
 * the expected records across numbered pages; the account currency from the key; a wrong key is
 * a clear error; a 429 is waited out; an unreadable row is a problem, not dropped.
 */
import { afterEach, expect, test } from 'vitest';
import { createFirstPromoterReader } from '../../src/importers/firstpromoter/index.ts';
import { startFakeFirstPromoter } from './fakes/firstpromoter.ts';
import type { FakeSource } from './fakes/fake-server.ts';
import { firstPromoterFixture } from './fixtures/firstpromoter/api.ts';
import { expectedCodes, expectedCounts, expectedDue, expectedRecords } from './fixtures/firstpromoter/expected.ts';
import { codesByPartner, countsByKind, dueByPartner, inDependencyOrder, readAll } from './read-all.ts';

const KEY = 'fp_test_key_1';
const ACCOUNT = firstPromoterFixture.accountId;
let fake: FakeSource | undefined;
afterEach(() => fake?.close());

test('reads the fixture account, page by page, as exactly the expected records', async () => {
  fake = await startFakeFirstPromoter(firstPromoterFixture, { key: KEY });
  const reader = createFirstPromoterReader({ apiKey: `${ACCOUNT}:${KEY}:usd`, baseUrl: fake.url });
  const records = await readAll(reader);
  expect(records).toEqual(expectedRecords);
  expect(countsByKind(records)).toEqual(expectedCounts);
  expect(codesByPartner(records)).toEqual(expectedCodes);
  expect(dueByPartner(records)).toEqual(expectedDue);
  expect(inDependencyOrder(records)).toBe(true);
  // Seven commissions at three a page: pages 1 to 3, then an empty page 4 ends the list.
  const pages = fake.requests.filter((r) => r.path === '/commissions').map((r) => r.query.get('page'));
  expect(pages).toEqual(['1', '2', '3', '4']);
  expect(await reader.balances()).toBeNull();
});

test('amounts carry the account currency the key names, whatever it is', async () => {
  fake = await startFakeFirstPromoter(firstPromoterFixture, { key: KEY });
  const records = await readAll(createFirstPromoterReader({ apiKey: `${ACCOUNT}:${KEY}:CHF`, baseUrl: fake.url }));
  const currencies = new Set(
    records.flatMap((r) => (r.kind === 'commission' || r.kind === 'payout' ? [r.currency] : [])),
  );
  expect([...currencies]).toEqual(['CHF']);
});

test('a wrong key is refused with a message naming FirstPromoter; a key without the currency is refused at once', async () => {
  fake = await startFakeFirstPromoter(firstPromoterFixture, { key: KEY });
  const reader = createFirstPromoterReader({ apiKey: `${ACCOUNT}:wrong:USD`, baseUrl: fake.url });
  await expect(readAll(reader)).rejects.toThrow(
    /FirstPromoter refused the API key \(401: Unauthenticated or missing bearer token\)/,
  );
  expect(() => createFirstPromoterReader({ apiKey: `${ACCOUNT}:${KEY}` })).toThrow(/<account id>:<API key>:<currency>/);
  // No source publishes its CSV layout: a file is refused, not guessed at.
  expect(() =>
    createFirstPromoterReader({ apiKey: `${ACCOUNT}:${KEY}:USD`, csv: { 'commissions.csv': 'id,amount' } }),
  ).toThrow(/publishes no layout for its CSV exports/);
});

test('a 429 is waited out for its Retry-After, then the same page is asked again', async () => {
  fake = await startFakeFirstPromoter(firstPromoterFixture, { key: KEY });
  fake.rateLimitOnce('/referrals', 1);
  const records = await readAll(createFirstPromoterReader({ apiKey: `${ACCOUNT}:${KEY}:USD`, baseUrl: fake.url }));
  expect(records).toEqual(expectedRecords);
  const firstPage = fake.requests.filter((r) => r.path === '/referrals' && r.query.get('page') === '1');
  expect(firstPage).toHaveLength(2);
  expect(firstPage[1]!.at - firstPage[0]!.at).toBeGreaterThanOrEqual(900);
});

test('a row it cannot read becomes a problem with a plain reason, the rest still read', async () => {
  const broken = structuredClone(firstPromoterFixture);
  broken.commissions[0]!.amount = 14.7;
  broken.commissions[1]!.status = 'on_hold';
  broken.payouts[0]!.promoter.id = 1;
  fake = await startFakeFirstPromoter(broken, { key: KEY });
  const records = await readAll(createFirstPromoterReader({ apiKey: `${ACCOUNT}:${KEY}:USD`, baseUrl: fake.url }));
  expect(records.filter((r) => r.kind === 'problem').map((r) => [r.of, r.sourceId, r.reason])).toEqual([
    ['commission', '7001', 'the amount "14.7" is not a whole number of cents'],
    ['commission', '7002', 'unknown FirstPromoter status "on_hold"'],
    ['commission', '7007', 'a non-cash reward (free_months), not a commission in money'],
    ['payout', '2709255', 'names no imported promoter'],
  ]);
  expect(inDependencyOrder(records)).toBe(true);
});
