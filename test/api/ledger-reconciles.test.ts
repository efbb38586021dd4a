/**
 * Every use-case that moves a partner's money goes through the ledger: after any sequence of
 * sales (API in USD or EUR, and Stripe), approvals, refunds (API and Stripe), lost disputes,
 * payouts (opened, paid, cancelled) and single-commission payments, the partner statement
 * reconciles in every currency it holds and agrees with the commissions, refunds and payouts it
 * was built from. Random sequences (fast-check), both modes (embedded and, under
 * `npm run test:prod`, PostgreSQL and BullMQ). `LEDGER_RUNS` sequences (12 by default) from a
 * fixed seed, or `PROPERTY_SEED`.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { bearer, type Fixture } from '../helpers/harness.ts';
import { PROPERTY_SEED } from '../property/seed.ts';
import { published } from '../providers/fixtures/published.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { keysOf, newRef } from '../webhooks/scenario-steps.ts';
import { useWebhookHarness } from '../webhooks/webhook-harness.ts';

const w = useWebhookHarness(stripeKit);
const h = w.h;
type Row = Record<string, any>;

/** One sale of the run: its transaction id and, for Stripe sales, the provider-side ref. */
type Sale = { transactionId: string; stripeRef: string | null };
type World = { f: Fixture; sales: Sale[] };

type Op =
  | { op: 'api_sale'; amount: number; currency: Currency }
  | { op: 'stripe_sale'; amount: number }
  | { op: 'approve' | 'dispute_lost' | 'pay_commission'; sale: number }
  | { op: 'api_refund'; sale: number; amount: number | null }
  | { op: 'stripe_refund'; sale: number; amount: number }
  | { op: 'open_payout'; currency: Currency; amount: number | null; then: 'pay' | 'cancel' | 'leave' };

const amount = fc.integer({ min: 1, max: 200_000 });
/** Stripe sales are in USD; API sales and payouts in either, so a run's ledger can hold two currencies. */
type Currency = 'USD' | 'EUR';
const currency = fc.constantFrom<Currency>('USD', 'EUR');
const saleIndex = fc.nat({ max: 20 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('api_sale' as const), amount, currency }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('stripe_sale' as const), amount }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('approve' as const), sale: saleIndex }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('api_refund' as const), sale: saleIndex, amount: fc.option(amount) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('stripe_refund' as const), sale: saleIndex, amount }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('dispute_lost' as const), sale: saleIndex }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pay_commission' as const), sale: saleIndex }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('open_payout' as const),
      currency,
      amount: fc.option(fc.integer({ min: 1, max: 30_000 })),
      then: fc.constantFrom('pay' as const, 'cancel' as const, 'leave' as const),
    }),
  },
);

async function deliver(programId: number, body: object): Promise<void> {
  const res = await w.send(programId, body);
  expect(res.status).toBe(200);
  await w.waitForInbox(programId, res.body.id, 'processed');
}

/** Admin calls whose refusal (400 nothing to pay, 404) is a legitimate answer to a random step. */
async function tolerated(call: Promise<unknown>): Promise<void> {
  await call.catch((err: Error) => {
    if (!/→ (400|404|409) /.test(err.message)) throw err;
  });
}

const pick = (world: World, i: number): Sale | undefined => world.sales[i % Math.max(1, world.sales.length)];

async function commissionOf(world: World, sale: Sale): Promise<Row | undefined> {
  const s = await w.sale(world.f.programId, sale.transactionId);
  return s && w.commissionOf(world.f.programId, s.id);
}

async function run(world: World, step: Op): Promise<void> {
  const { f } = world;
  switch (step.op) {
    case 'api_sale': {
      const customer = await w.newCustomer(f);
      const transactionId = newRef('api');
      const r = await h.request('/api/v1/track/sale', {
        body: {
          transaction_id: transactionId,
          amount_cents: step.amount,
          currency: step.currency,
          customer_key: customer.customerKey,
        },
        headers: bearer(f.liveKey),
      });
      expect(r.status).toBe(200);
      world.sales.push({ transactionId, stripeRef: null });
      return;
    }
    case 'stripe_sale': {
      const ref = newRef('st');
      const customer = await w.newCustomer(f);
      const payment = stripeKit.payment({ ref, amountCents: step.amount, keys: keysOf(f, customer) });
      await deliver(f.programId, payment.event);
      world.sales.push({ transactionId: payment.transactionId, stripeRef: ref });
      return;
    }
    case 'approve':
    case 'pay_commission': {
      const sale = pick(world, step.sale);
      const c = sale && (await commissionOf(world, sale));
      if (!c) return;
      const action = step.op === 'approve' ? 'approve' : 'pay';
      await tolerated(h.admin('POST', `/programs/${f.programId}/commissions/${c.id}/${action}`, {}));
      return;
    }
    case 'api_refund': {
      const sale = pick(world, step.sale);
      if (!sale) return;
      const r = await h.request('/api/v1/track/refund', {
        body: {
          transaction_id: sale.transactionId,
          ...(step.amount === null ? {} : { refund_amount_cents: step.amount, refund_id: newRef('re') }),
        },
        headers: bearer(f.liveKey),
      });
      expect(r.status).toBe(200);
      return;
    }
    case 'stripe_refund': {
      const sale = pick(world, step.sale);
      if (!sale?.stripeRef) return;
      const total = (await w.sale(f.programId, sale.transactionId))!.amount_cents as number;
      const refund = stripeKit.refund({
        ref: sale.stripeRef,
        saleAmountCents: total,
        refundId: `re_${newRef('r')}`,
        amountCents: Math.min(step.amount, total),
        totalCents: Math.min(step.amount, total),
      });
      await deliver(f.programId, refund);
      return;
    }
    case 'dispute_lost': {
      const sale = pick(world, step.sale);
      if (!sale?.stripeRef) return;
      const total = (await w.sale(f.programId, sale.transactionId))!.amount_cents as number;
      const dispute = published('stripe', 'event', {
        id: `evt_${newRef('e')}`,
        type: 'charge.dispute.funds_withdrawn',
        livemode: true,
        api_version: '2025-03-31.basil',
        data: {
          object: {
            ...published('stripe', 'dispute', {
              id: `dp_${sale.stripeRef}`,
              charge: `ch_${sale.stripeRef}`,
              payment_intent: `pi_${sale.stripeRef}`,
              amount: total,
              status: 'needs_response',
            }),
            livemode: true,
          },
        },
      });
      await deliver(f.programId, dispute);
      return;
    }
    case 'open_payout': {
      const opened = await h
        .admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
          currency: step.currency,
          ...(step.amount === null ? {} : { amount_cents: step.amount }),
        })
        .catch((err: Error) => {
          if (/→ 400 /.test(err.message)) return null;
          throw err;
        });
      if (!opened || step.then === 'leave') return;
      const path = `/programs/${f.programId}/payouts/${opened.payout.id}/${step.then}`;
      await tolerated(h.admin('POST', path, {}));
      return;
    }
  }
}

/** Half-up rounding of commission × refunded / amount: the proportional reversal. */
function expectedReversal(commission: number, refunded: number, amount: number): number {
  if (refunded >= amount) return commission;
  const n = BigInt(commission) * BigInt(refunded);
  const d = BigInt(amount);
  return Number((2n * n + d) / (2n * d));
}

async function expectReconciled(world: World): Promise<void> {
  const { f } = world;
  const list = (kind: Parameters<typeof w.list>[1]) => w.list(f.programId, kind);
  const [sales, commissions, refunds, statement, payouts] = await Promise.all([
    list('sales'),
    list('commissions'),
    list('refunds'),
    h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`),
    h.admin('GET', `/programs/${f.programId}/payouts?limit=500`).then((r) => r.payouts as Row[]),
  ]);
  // Each refund applied once: the sale's refunded total is the sum of its refunds, capped.
  for (const sale of sales) {
    const applied = refunds.filter((r) => r.sale === sale.id).reduce((s, r) => s + r.applied_cents, 0);
    expect(sale.refunded_cents).toBe(applied);
    expect(sale.refunded_cents).toBeLessThanOrEqual(sale.amount_cents);
    // ... and in proportion: the commission's reversal follows the sale's refunded share.
    const c = commissions.find((x) => x.sale === sale.id);
    if (c) expect(c.reversed_cents).toBe(expectedReversal(c.amount_cents, sale.refunded_cents, sale.amount_cents));
  }
  // Every currency the ledger or its source rows touch has a line in the statement, and none other.
  // A commission credited with nothing left (0 on a sale of a few cents, or already reversed whole
  // by a refund before approval) posts nothing and touches no balance; one credited with something
  // left still holds it unless later reversals, each a ledger line, took it back.
  const ledger = statement.ledger as Row[];
  const touched = new Set<string>([
    ...commissions.filter((c) => c.credited_at && c.amount_cents > c.reversed_cents).map((c) => c.currency),
    ...payouts.map((p) => p.currency),
    ...ledger.map((e) => e.currency),
  ]);
  const lines = statement.currencies as Row[];
  expect(lines.map((l) => l.currency).sort()).toEqual([...touched].sort());
  const sum = (rows: Row[], cents: string) => rows.reduce((s, r) => s + (r[cents] as number), 0);
  for (const line of lines) {
    const cur = line.currency as string;
    const ofCur = (rows: Row[], keep: (r: Row) => boolean = () => true) =>
      rows.filter((r) => r.currency === cur && keep(r));
    expect(line.reconciles, cur).toBe(true);
    expect(line.credits_cents - line.reversals_cents - line.payouts_cents, cur).toBe(line.balance_cents);
    expect(line.unpaid_commissions_cents - line.owed_cents, cur).toBe(line.balance_cents);
    expect(sum(ofCur(ledger), 'delta_cents'), cur).toBe(line.balance_cents);
    // From the source rows alone: what credited commissions still hold, less what was paid out.
    const credited = ofCur(commissions, (c) => c.credited_at);
    const held = sum(credited, 'amount_cents') - sum(credited, 'reversed_cents');
    const paidOut = sum(
      ofCur(payouts, (p) => p.status === 'paid'),
      'amount_cents',
    );
    expect(line.payouts_cents, cur).toBe(paidOut);
    expect(line.balance_cents, cur).toBe(held - paidOut);
    // Open payouts always fit in what the balance can pay.
    const open = sum(
      ofCur(payouts, (p) => p.status === 'open'),
      'amount_cents',
    );
    expect(open, cur).toBeLessThanOrEqual(Math.max(0, line.balance_cents));
  }
  // The independent recomputation of the whole program's ledger agrees (ledger:verify).
  const verified = await h.admin('POST', `/programs/${f.programId}/ledger/verify`, {});
  expect(verified.first_differences).toEqual([]);
  expect(verified.clean).toBe(true);
}

test('the statement reconciles after any sequence of money-moving use-cases', { timeout: 600_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 14 }), async (ops) => {
      const world: World = { f: await w.newProgram(), sales: [] };
      for (const step of ops) await run(world, step);
      await expectReconciled(world);
    }),
    { seed: PROPERTY_SEED, numRuns: Number(process.env.LEDGER_RUNS ?? 12), endOnFailure: true },
  );
});
