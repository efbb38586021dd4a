/**
 * The delivery-order property for one provider: every generated scenario (./scenario.ts) is sent
 * over real HTTP to the running service, in its order, each webhook waited on until the queue has
 * processed it, and what the admin API then reports is compared with the model, to the cent.
 *
 * One service per file (several providers share it), one program per run. Runs: `PROPERTY_RUNS` (else the file's CI count);
 * seed: `PROPERTY_SEED` (else a fixed one); fast-check prints the seed and path of a failure.
 */
import { beforeAll, expect, test } from 'vitest';
import fc from 'fast-check';
import { waitFor } from '../helpers/wait-for.ts';
import { useHarness } from '../helpers/harness.ts';
import {
  webhookHarnessOn,
  WEBHOOK_TEST_ENV,
  type HarnessKit,
  type WebhookHarness,
} from '../webhooks/webhook-harness.ts';
import { keysOf, newRef } from '../webhooks/scenario-steps.ts';
import { expected, scenarios, PROGRAM_RATE_BPS, type Scenario } from './scenario.ts';
import type { Driver, Outgoing, RunContext } from './drivers.ts';
import { PROPERTY_SEED } from './seed.ts';

const runsFor = (ciRuns: number) => Number(process.env.PROPERTY_RUNS ?? ciRuns);

type Row = Record<string, any>;
let serial = 100_000 + Math.floor(Math.random() * 800_000);

/**
 * Registers one test per driver in the current file, all against one service: each runs its
 * driver's CI count of scenarios (`PROPERTY_RUNS` overrides every count).
 */
export function defineDeliveryOrderProperties(suites: Array<[driver: Driver, ciRuns: number]>): void {
  const h = useHarness(WEBHOOK_TEST_ENV);
  let base = '';
  beforeAll(async () => {
    base = await h.listen();
  });
  for (const [driver, ciRuns] of suites) {
    const w = webhookHarnessOn(h, () => base, driver.kit);
    const runs = runsFor(ciRuns);
    test(
      `${driver.name}: any delivery order leaves the commission, balance and statement the model computes`,
      async () => {
        await fc.assert(
          fc.asyncProperty(scenarios(driver.traits), (s) => runScenario(w, driver, s)),
          { seed: PROPERTY_SEED, numRuns: runs, endOnFailure: true },
        );
      },
      // A generous bound per run (a loaded machine): every delivery is processed before the next is sent.
      60_000 + runs * 60_000,
    );
  }
}

async function settle(w: WebhookHarness<HarnessKit>, programId: number, id: number): Promise<Row> {
  return waitFor(
    async () => {
      const row = (await w.inbox(programId)).find((r) => r.id === id);
      if (row?.status === 'failed') throw new Error(`webhook event ${id} failed: ${row.error}`);
      if (row?.status !== 'processed' && row?.status !== 'ignored') return false;
      return row;
    },
    60_000,
    50,
  );
}

async function send(w: WebhookHarness<HarnessKit>, c: RunContext, out: Outgoing): Promise<void> {
  const res = await w.post(out.path, out.body, out.headers);
  if (out.api) {
    // A sale again: 409 duplicate_transaction; a refund before its sale: 404 (never parked).
    expect([200, 404, 409], JSON.stringify(res.body)).toContain(res.status);
    return;
  }
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const row = await settle(w, c.f.programId, res.body.id);
  // Only the sale's duplicates and Stripe's lost dispute are ignored; nothing else may be.
  if (row.status === 'ignored') expect(['dispute_not_won'], `${row.error}`).toContain(row.error);
}

async function runScenario(w: WebhookHarness<HarnessKit>, driver: Driver, s: Scenario): Promise<void> {
  const f = await w.newProgram({ commission_rate_bps: PROGRAM_RATE_BPS });
  const customer = await w.newCustomer(f);
  const c: RunContext = {
    w,
    f,
    ref: newRef('p'),
    keys: keysOf(f, customer),
    customerKey: customer.customerKey,
    saleCents: s.saleCents,
    specs: s.specs,
    serial: ++serial,
  };
  await driver.prepare?.(c);
  const transactionId = driver.transactionId(c);
  const built = new Map<number, Outgoing>();
  for (const [i, d] of s.order.entries()) {
    let out = built.get(d.spec);
    if (!out || d.copy === 'reissue') {
      out = driver.build(c, s.specs[d.spec]!, out !== undefined);
      built.set(d.spec, out);
    }
    await send(w, c, out);
    if (i === s.approveAfter) await approve(w, c, transactionId);
  }

  const want = expected(s, driver.traits);
  const sale = await w.sale(f.programId, transactionId);
  expect(sale, 'the sale is recorded').toBeDefined();
  const commission = (await w.commissionOf(f.programId, sale!.id))!;
  const statement = await w.h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`);
  const position = statement.currencies.find((r: Row) => r.currency === driver.currency) ?? {
    credits_cents: 0,
    reversals_cents: 0,
    balance_cents: 0,
    unpaid_commissions_cents: 0,
    reconciles: true,
  };
  const notifications = await w.list(f.programId, 'notifications');
  const got = {
    commissionCents: commission.amount_cents,
    refundedCents: sale!.refunded_cents,
    reversedCents: commission.reversed_cents,
    status: commission.status,
    balanceCents: await w.balanceCents(f, driver.currency),
    statement: {
      credits_cents: position.credits_cents,
      reversals_cents: position.reversals_cents,
      balance_cents: position.balance_cents,
      unpaid_commissions_cents: position.unpaid_commissions_cents,
    },
    reviews: notifications.filter((n) => n.payload?.review_reason === 'chargeback_won').length,
  };
  expect(got).toEqual(want);
  expect(position.reconciles).toBe(true);
  // Every reversal is one refund row's deduction: the rows add up to the commission's reversed amount.
  const refunds = await w.list(f.programId, 'refunds');
  expect(refunds.reduce((sum, r) => sum + r.deduction_cents, 0)).toBe(want.reversedCents);
  expect(await w.inbox(f.programId, 'failed')).toEqual([]);
}

/** Approves the sale's commission when it is recorded and not reversed (the model credits it then). */
async function approve(w: WebhookHarness<HarnessKit>, c: RunContext, transactionId: string): Promise<void> {
  const sale = await w.sale(c.f.programId, transactionId);
  if (!sale) return;
  const commission = await w.commissionOf(c.f.programId, sale.id);
  if (!commission || commission.status === 'reversed') return;
  await w.h.admin('POST', `/programs/${c.f.programId}/commissions/${commission.id}/approve`, {});
}
