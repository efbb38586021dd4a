/**
 * Rewardful's import sheet (fixtures/rewardful/csv/affiliates.csv) end to end, through the same
 * import as the API path: the affiliates, tokens and Stripe customers of the API fixture arrive;
 * a second run creates nothing; a dry run writes nothing; each bad row is reported with its line
 * and why; a later Stripe renewal of an imported customer attributes to its partner; and the admin
 * API takes the files (`csv`), refusing an unreadable one, both or neither of key and files, and
 * files for a source that publishes no CSV layout.
 */
import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import { runImport } from '../../src/core/imports/run-import.ts';
import type { IImportRun } from '../../src/core/entities/import-run.ts';
import { createReader } from '../../src/importers/registry.ts';
import { ADMIN_TOKEN } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { useWebhookHarness } from '../webhooks/webhook-harness.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { rewardfulCsvExpected as x, rewardfulSheet } from './fixtures/rewardful/csv/expected.ts';
import { snapshotPartners } from './snapshot.ts';
import { renewalOfImportedCustomer } from './renewal.ts';

const wh = useWebhookHarness(stripeKit, { DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` });
const h = wh.h;

const reader = () => createReader('rewardful', { csv: { affiliates: rewardfulSheet() } });
const program = async () => {
  const f = await wh.newProgram();
  await x.prepare(h, f);
  return f;
};
const problemsOf = (run: IImportRun) =>
  run.report.problems.map((p) => ({ of: p.of, sourceId: p.sourceId, reason: p.reason }));

test('the sheet brings the affiliates, tokens and customers the API fixture has; a second run creates nothing', async () => {
  const f = await program();
  const run = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
  expect(run.status).toBe('finished');
  expect(run.source).toBe('rewardful');
  expect(run.report.counts).toEqual(x.counts);
  expect(await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId)).toEqual(x.partners);
  // Nothing owed at the source (the sheet has no commissions), nothing owed here.
  expect(run.report.balances.filter((b) => !b.matches)).toEqual([]);

  const again = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
  expect(again.createdCount).toBe(0);
  expect(again.skippedCount).toBe(run.createdCount);
  expect(await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId)).toEqual(x.partners);
  // Luke's PayPal email came along as his payout details.
  const partners = (await h.admin('GET', `/programs/${f.programId}/partners`)).partners as Array<{
    id: number;
    email: string;
  }>;
  const luke = partners.find((p) => p.email === 'luke@rebels.example')!;
  const method = await h.admin('GET', `/programs/${f.programId}/partners/${luke.id}/payout-method`);
  expect(method.payout_method).toMatchObject({ kind: 'paypal', hint: expect.stringMatching(/@rebels\.example$/) });
});

test('each bad row is reported with its line in the file and why, the good rows imported', async () => {
  const f = await program();
  const run = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
  const problems = problemsOf(run);
  expect(problems.map((p) => ({ of: p.of, sourceId: p.sourceId }))).toEqual(
    x.problems.map((p) => ({ of: p.of, sourceId: p.sourceId })),
  );
  problems.forEach((p, i) => expect(p.reason).toContain(x.problems[i]!.reason));
  expect(problems[0]!.reason).toMatch(/^line 5: no affiliate email: the affiliate not brought$/);
});

test('a dry run writes nothing and reports what a run would create', async () => {
  const f = await program();
  const run = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: true });
  expect(run.dryRun).toBe(true);
  expect(run.report.counts).toEqual(x.counts);
  expect(await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId)).toEqual([]);
});

test('a later Stripe renewal of a customer from the sheet attributes to its partner', async () => {
  const f = await program();
  await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
  const { creditedTo, expected } = await renewalOfImportedCustomer(
    wh,
    f.programId,
    x.stripeCustomer.id,
    x.stripeCustomer.partnerEmail,
  );
  expect(creditedTo).toBe(expected);
  expect(expected).toBeDefined();
});

test('the admin API imports the files given as csv and refuses what it cannot read', async () => {
  const f = await program();
  const post = (body: unknown) =>
    h.request(`/api/v1/admin/programs/${f.programId}/imports`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
  const started = await post({ source: 'rewardful', csv: { affiliates: rewardfulSheet() } });
  expect(started.status).toBe(202);
  const path = `/programs/${f.programId}/imports/${started.body.import.id}`;
  const done = await waitFor(async () => {
    const { import: run } = await h.admin('GET', path);
    return run.status === 'running' ? undefined : run;
  });
  expect(done.status).toBe('finished');
  expect(done.report.counts).toEqual(x.counts);

  const refused = async (body: unknown, field: string, message: RegExp) => {
    const r = await post(body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(message);
    expect(JSON.stringify(r.body)).toContain(field);
  };
  await refused({ source: 'rewardful' }, 'api_key', /one of the two/);
  await refused({ source: 'rewardful', api_key: 'k', csv: { affiliates: 'email\n' } }, 'api_key', /one of the two/);
  await refused({ source: 'rewardful', csv: { affiliates: 'name,token\nLuke,luke\n' } }, 'csv', /no email column/);
  await refused({ source: 'rewardful', csv: { commissions: 'id\n1\n' } }, 'csv', /one file, affiliates\.csv/);
  await refused({ source: 'rewardful', csv: { affiliates: 'email,"token\nx' } }, 'csv', /not a CSV file/);
  await refused({ source: 'tolt', csv: { partners: 'email\n' } }, 'csv', /Tolt publishes no layout/);
  // Nothing was started by a refused request: only the first import is listed.
  expect((await h.admin('GET', `/programs/${f.programId}/imports`)).imports).toHaveLength(1);
});
