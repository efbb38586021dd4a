/**
 * The PartnerStack reader against a fake of its vendor API v2 (fakes/partnerstack.ts): exactly
 * the expected records across cursor pages; a wrong key is a clear error; a 429 is waited out;
 * an unreadable row is a problem, not dropped.
 */
import { afterEach, expect, test } from 'vitest';
import { createPartnerStackReader } from '../../src/importers/partnerstack/index.ts';
import { startFakePartnerStack } from './fakes/partnerstack.ts';
import type { FakeSource } from './fakes/fake-server.ts';
import { partnerStackFixture } from './fixtures/partnerstack/api.ts';
import { expectedCodes, expectedCounts, expectedDue, expectedRecords } from './fixtures/partnerstack/expected.ts';
import { codesByPartner, countsByKind, dueByPartner, inDependencyOrder, readAll } from './read-all.ts';

const KEYS = { publicKey: 'pk_test_1', secretKey: 'sk_test_1' };
const API_KEY = `${KEYS.publicKey}:${KEYS.secretKey}`;
let fake: FakeSource | undefined;
afterEach(() => fake?.close());

test('reads the fixture program, page by page, as exactly the expected records', async () => {
  fake = await startFakePartnerStack(partnerStackFixture, KEYS);
  const reader = createPartnerStackReader({ apiKey: API_KEY, baseUrl: fake.url });
  const records = await readAll(reader);
  expect(records).toEqual(expectedRecords);
  expect(countsByKind(records)).toEqual(expectedCounts);
  expect(codesByPartner(records)).toEqual(expectedCodes);
  expect(dueByPartner(records)).toEqual(expectedDue);
  expect(inDependencyOrder(records)).toBe(true);
  const rewardPages = fake.requests.filter((r) => r.path === '/rewards').map((r) => r.query.get('starting_after'));
  expect(rewardPages).toEqual([null, 'rwrd_2bbbbbbbbbb', 'rwrd_4dddddddddd']);
  expect(await reader.balances()).toBeNull();
});

test('a wrong key is refused with a message naming PartnerStack and what it said', async () => {
  fake = await startFakePartnerStack(partnerStackFixture, KEYS);
  const reader = createPartnerStackReader({ apiKey: `${KEYS.publicKey}:wrong`, baseUrl: fake.url });
  await expect(readAll(reader)).rejects.toThrow(/PartnerStack refused the API key \(401: Unauthorized\)/);
  expect(() => createPartnerStackReader({})).toThrow(/<public key>:<secret key>/);
  // No source publishes its CSV layout: a file is refused, not guessed at.
  expect(() => createPartnerStackReader({ apiKey: API_KEY, csv: { 'rewards.csv': 'key,amount' } })).toThrow(
    /publishes no layout for its CSV exports/,
  );
});

test('a 429 is waited out for its Retry-After, then the same page is asked again', async () => {
  fake = await startFakePartnerStack(partnerStackFixture, KEYS);
  fake.rateLimitOnce('/customers', 1);
  const records = await readAll(createPartnerStackReader({ apiKey: API_KEY, baseUrl: fake.url }));
  expect(records).toEqual(expectedRecords);
  const first = fake.requests.filter((r) => r.path === '/customers' && !r.query.get('starting_after'));
  expect(first).toHaveLength(2);
  expect(first[1]!.at - first[0]!.at).toBeGreaterThanOrEqual(900);
});

test('a row it cannot read becomes a problem with a plain reason, the rest still read', async () => {
  const broken = structuredClone(partnerStackFixture);
  (broken.rewards[1] as Record<string, unknown>).amount = '20.00';
  broken.rewards[2]!.status = 'in_review';
  broken.customers[4]!.partnership_key = 'part_gone';
  fake = await startFakePartnerStack(broken, KEYS);
  const records = await readAll(createPartnerStackReader({ apiKey: API_KEY, baseUrl: fake.url }));
  expect(records.filter((r) => r.kind === 'problem').map((r) => [r.of, r.sourceId, r.reason])).toEqual([
    ['customer', 'cus_2Y9w5mL6Th6e6t', 'names no imported partnership'],
    ['commission', 'rwrd_2bbbbbbbbbb', 'the amount "20.00" is not a whole number of cents'],
    ['commission', 'rwrd_3cccccccccc', 'unknown PartnerStack status "in_review"'],
  ]);
  // The reward of the customer left out still belongs to its partnership, without the customer.
  const quinn = records.find((r) => r.kind === 'commission' && r.sourceId === 'rwrd_6ffffffffff');
  expect(quinn).toMatchObject({ partnerSourceId: 'part_quinn0000004', customerSourceId: null });
  expect(inDependencyOrder(records)).toBe(true);
});
