/** Payouts and payout runs through the admin CLI against a real service. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, clickAndLead, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { adminCli, run, startCliTarget } from './admin-cli-target.ts';

let h: Harness;
let url: string;
beforeAll(async () => {
  ({ h, url } = await startCliTarget());
});
afterAll(async () => {
  await h.close();
});
const admin = adminCli(() => url);

test('payouts through the CLI: open, pay, statement, list; commissions:pay', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'cli-payee');
  const ids: number[] = [];
  for (const [i, amount] of [10_000, 20_000].entries()) {
    const r = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `cli-po-${i}`, amount_cents: amount, customer_key: 'cli-payee' },
      headers: bearer(f.liveKey),
    });
    ids.push(r.body.commission_id);
    await admin('commissions:approve', String(f.programId), String(r.body.commission_id));
  }
  const open = await admin(
    'payouts:open',
    String(f.programId),
    String(f.partnerId),
    '--currency',
    'USD',
    '--amount-cents',
    '1500',
  );
  expect(open.payout).toMatchObject({ status: 'open', amount_cents: 1_500 });
  const paid = await admin('payouts:pay', String(f.programId), String(open.payout.id));
  expect(paid).toMatchObject({
    payout: { status: 'paid', amount_cents: 1_000 },
    commissions: [{ id: ids[0], status: 'paid', payout: open.payout.id }],
  });
  const one = await admin('commissions:pay', String(f.programId), String(ids[1]));
  expect(one.payout).toMatchObject({ status: 'paid', amount_cents: 2_000 });
  const st = await admin('partners:statement', String(f.programId), String(f.partnerId));
  expect(st.currencies).toEqual([
    expect.objectContaining({
      currency: 'USD',
      credits_cents: 3_000,
      reversals_cents: 0,
      payouts_cents: 3_000,
      balance_cents: 0,
      reconciles: true,
    }),
  ]);
  const list = await admin(
    'payouts:list',
    String(f.programId),
    '--partner-id',
    String(f.partnerId),
    '--status',
    'paid',
  );
  expect(list.payouts.map((p: any) => p.id)).toEqual([one.payout.id, open.payout.id]);
  const { stdout } = await run(process.execPath, ['src/cli/admin.ts', '--help']).catch((e) => e);
  expect(stdout).toMatch(/partners:statement[\s\S]*payouts:open[\s\S]*payouts:pay/);
});

test('payout runs through the CLI: run, fail (the balance back), run again, confirm the run', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'cli-run');
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'cli-run-1', amount_cents: 50_000, customer_key: 'cli-run' },
    headers: bearer(f.liveKey),
  });
  await admin('commissions:approve', String(f.programId), String(r.body.commission_id));
  const P = String(f.programId);
  const first = await admin('payouts:run', P, '--currency', 'USD');
  expect(first.run).toMatchObject({ rail: 'manual', payout_count: 1, total_cents: 5_000 });
  const failed = await admin('payouts:fail', P, String(first.payouts[0].id), '--reason', 'bank refused');
  expect(failed.payout).toMatchObject({ status: 'failed', failure_reason: 'bank refused' });
  const second = await admin('payouts:run', P, '--currency', 'USD');
  expect(second.payouts.map((p: any) => [p.status, p.amount_cents])).toEqual([['processing', 5_000]]);
  const done = await admin('payouts:confirm-run', P, String(second.run.id));
  expect(done.payouts.map((p: any) => p.status)).toEqual(['paid']);
  // A manual run has no bank file.
  const noFile = await run(
    process.execPath,
    ['src/cli/admin.ts', 'payouts:file', P, String(second.run.id), '--url', url],
    {
      env: { ...process.env, ADMIN_TOKEN },
    },
  ).catch((e) => e);
  expect(noFile.code).toBe(1);
  expect(noFile.stderr).toMatch(/400 invalid_request: Run \d+ pays through manual/);
  expect((await admin('partners:statement', P, String(f.partnerId))).currencies[0]).toMatchObject({
    balance_cents: 0,
    payouts_cents: 5_000,
    reconciles: true,
  });
});
