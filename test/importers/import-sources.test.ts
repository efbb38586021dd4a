/**
 * Every source reader end to end against a fake of its API: the import brings partners, codes,
 * customers, commissions and balances as the fixture has them; a second run creates nothing; a
 * run stopped midway and started again ends identical; a dry run writes nothing; bad rows are
 * reported; a later Stripe renewal of an imported customer attributes to the imported partner.
 * A source joins by adding its fixture's expectations to SOURCES.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runImport } from '../../src/core/imports/run-import.ts';
import type { IImportRun } from '../../src/core/entities/import-run.ts';
import type { ImportReader } from '../../src/core/imports/import-records.ts';
import { createReader } from '../../src/importers/registry.ts';
import { useWebhookHarness } from '../webhooks/webhook-harness.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { rewardfulExpected } from './fixtures/rewardful/expected.ts';
import { toltExpected } from './fixtures/tolt/e2e-expected.ts';
import { firstPromoterExpected } from './fixtures/firstpromoter/e2e-expected.ts';
import { partnerStackExpected } from './fixtures/partnerstack/e2e-expected.ts';
import { dubExpected } from './fixtures/dub/e2e-expected.ts';
import type { FakeSource, SourceExpectation } from './source-expectation.ts';
import { snapshotPartners } from './snapshot.ts';
import { renewalOfImportedCustomer } from './renewal.ts';

const SOURCES: SourceExpectation[] = [
  rewardfulExpected,
  toltExpected,
  firstPromoterExpected,
  partnerStackExpected,
  dubExpected,
];

/** The same records, but the reading fails after `n` of them (a run killed midway). */
function failingAfter(reader: ImportReader, n: number): ImportReader {
  return {
    ...reader,
    async *records() {
      let seen = 0;
      for await (const r of reader.records()) {
        if (seen++ === n) throw new Error('connection lost');
        yield r;
      }
    },
  };
}

const mismatches = (run: IImportRun) =>
  run.report.balances.filter((b) => !b.matches).map((b) => `${b.partnerSourceId}:${b.currency}`);

describe.each(SOURCES)('import from $source', (x) => {
  const wh = useWebhookHarness(stripeKit, { DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` });
  const h = wh.h;
  let fake: FakeSource;
  beforeAll(async () => {
    fake = await x.start();
  });
  afterAll(async () => {
    await fake.close();
  });
  const reader = () => createReader(x.source, { apiKey: fake.apiKey, baseUrl: fake.baseUrl });
  const program = async () => {
    const f = await wh.newProgram();
    await x.prepare?.(h, f);
    return f;
  };

  test('brings partners, codes, customers, commissions and balances as the source has them; a second run creates nothing', async () => {
    const f = await program();
    const run = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
    expect(run.status).toBe('finished');
    expect(run.report.counts).toEqual(x.counts);
    expect(run.report.problems.map((p) => ({ of: p.of, sourceId: p.sourceId }))).toEqual(x.problems);
    expect(await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId)).toEqual(x.partners);
    // Every balance the source states (or its due commissions) is matched, but for the rows reported.
    expect(mismatches(run)).toEqual(x.mismatches);

    const again = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
    expect(again.createdCount).toBe(0);
    expect(again.skippedCount).toBe(run.createdCount);
    expect(await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId)).toEqual(x.partners);

    // Both runs are listed, newest first, with their reports.
    const list = await h.admin('GET', `/programs/${f.programId}/imports`);
    expect(list.imports.map((i: { id: number }) => i.id)).toEqual([again.id, run.id]);
    const one = await h.admin('GET', `/programs/${f.programId}/imports/${run.id}`);
    expect(one.import.report.counts).toEqual(x.counts);
  });

  test('a run stopped midway and started again ends identical', async () => {
    const f = await program();
    await expect(runImport(h.ctx.deps(), f.programId, failingAfter(reader(), 7), { dryRun: false })).rejects.toThrow(
      'connection lost',
    );
    const partial = await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId);
    expect(partial).not.toEqual(x.partners);
    const run = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
    expect(await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId)).toEqual(x.partners);
    expect(mismatches(run)).toEqual(x.mismatches);
    const runs = (await h.admin('GET', `/programs/${f.programId}/imports`)).imports;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(['finished', 'failed']);
  });

  test('a dry run writes nothing and reports what a run would create', async () => {
    const f = await program();
    const run = await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: true });
    expect(run.dryRun).toBe(true);
    expect(run.report.counts).toEqual(x.counts);
    expect(mismatches(run)).toEqual(x.mismatches);
    expect(await snapshotPartners(h.ctx.deps(), f.programId, f.partnerId)).toEqual([]);
  });

  test.runIf(x.stripeCustomer)(
    'a later Stripe renewal of an imported customer, without tracker metadata, attributes to the imported partner',
    async () => {
      const f = await program();
      await runImport(h.ctx.deps(), f.programId, reader(), { dryRun: false });
      const { id: customerId, partnerEmail } = x.stripeCustomer!;
      const { creditedTo, expected } = await renewalOfImportedCustomer(wh, f.programId, customerId, partnerEmail);
      expect(creditedTo).toBe(expected);
      expect(expected).toBeDefined();
    },
  );
});
