/**
 * An import's base URL goes through the outbound URL guard of event endpoints, both modes: when
 * the import starts (a name resolving to a private address: 400 url_not_allowed naming base_url)
 * and at every connection the reader opens. Names resolve only through the test resolver here
 * (`*.test` resolves nowhere else), so an import that reaches the fake through `source.test` shows
 * the reader connected where the guard resolved; a name that resolves to a public address when the
 * import starts and to a private one when the reader connects (DNS rebinding) gets no connection
 * and the run fails saying why.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_TOKEN, createProgramFixture, useHarness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import type { ResolvedAddress } from '../../src/egress/outbound-guard.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { toltExpected } from './fixtures/tolt/e2e-expected.ts';
import type { FakeSource } from './source-expectation.ts';

/** What each name resolves to, call after call (the last answer repeats). */
const dns = new Map<string, string[][]>();
const lookups: string[] = [];
async function lookup(hostname: string): Promise<ResolvedAddress[]> {
  lookups.push(hostname);
  const answers = dns.get(hostname);
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  const now = answers.length > 1 ? answers.shift()! : answers[0]!;
  return now.map((address) => ({ address, family: 4 }));
}

// A sealing key: the imported PayPal email is stored sealed (production mode has none by default).
const h = useHarness(
  { OUTBOUND_ALLOW_HOSTS: 'source.test', DATA_ENCRYPTION_KEYS: generateSealingKey('k1') },
  { lookup },
);
let fake: FakeSource;
let port: string;
beforeAll(async () => {
  fake = await toltExpected.start();
  port = new URL(fake.baseUrl).port;
  dns.set('source.test', [['127.0.0.1']]);
  dns.set('evil.test', [['10.0.0.1']]);
});
afterAll(async () => {
  await fake.close();
});

const start = (programId: number, baseUrl: string) =>
  h.request(`/api/v1/admin/programs/${programId}/imports`, {
    body: { source: 'tolt', api_key: fake.apiKey, base_url: baseUrl, dry_run: true },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });

const finished = async (programId: number, importId: number) => {
  let run: { status: string; error: string | null; report: { counts: unknown } } | undefined;
  await waitFor(async () => {
    run = (await h.admin('GET', `/programs/${programId}/imports/${importId}`)).import;
    return run!.status !== 'running';
  });
  return run!;
};

test('the reader connects where the guard resolved the base URL: an allowed name reaches the fake', async () => {
  const f = await createProgramFixture(h);
  lookups.length = 0;
  const r = await start(f.programId, `http://source.test:${port}`);
  expect(r.status).toBe(202);
  const run = await finished(f.programId, r.body.import.id);
  expect(run).toMatchObject({ status: 'finished', error: null });
  expect(run.report.counts).toEqual(toltExpected.counts);
  // Once when it started, then at the reader's connections.
  expect(lookups.filter((n) => n === 'source.test').length).toBeGreaterThan(1);
});

test('a name resolving to a private address is refused when the import starts: 400 url_not_allowed', async () => {
  const f = await createProgramFixture(h);
  const r = await start(f.programId, 'https://evil.test/v1');
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({
    code: 'url_not_allowed',
    details: {
      field: 'base_url',
      reason: 'evil.test resolves to a private address; outbound requests go only to public addresses',
    },
  });
  expect((await h.admin('GET', `/programs/${f.programId}/imports`)).imports).toEqual([]);
});

test('a name re-pointed at a private address after the start gets no connection; the run fails saying why', async () => {
  const f = await createProgramFixture(h);
  dns.set('rebind.test', [['93.184.215.14'], ['10.0.0.7']]);
  const r = await start(f.programId, 'https://rebind.test/v1');
  expect(r.status).toBe(202);
  const run = await finished(f.programId, r.body.import.id);
  expect(run.status).toBe('failed');
  expect(run.error).toMatch(
    /could not reach https:\/\/rebind\.test \(refused: rebind\.test resolves to a private address/,
  );
});
