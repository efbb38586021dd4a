/** The model of ./scenario.ts on scenarios worked out by hand, so the property compares against known figures. */
import { describe, expect, test } from 'vitest';
import { expected, type Delivery, type Scenario, type Spec, type Traits } from './scenario.ts';

const each: Traits = { refunds: 'each', disputes: 'dodo', minSaleCents: 100, maxSaleCents: 500_000 };
const first = (spec: number): Delivery => ({ spec, copy: 'redelivery' });
const scenario = (
  saleCents: number,
  specs: Spec[],
  order: Delivery[],
  approveAfter: number | null = null,
): Scenario => ({
  saleCents,
  specs,
  order,
  approveAfter,
});
const sale: Spec = { role: 'sale' };

describe('the delivery-order model', () => {
  test('thirds of 9 999 refunded in any order: 333 + 334 + 333, then the whole commission', () => {
    const specs: Spec[] = [
      sale,
      { role: 'refund', key: 'r0', amountCents: 3333, totalCents: 3333 },
      { role: 'refund', key: 'r1', amountCents: 3333, totalCents: 6666 },
    ];
    const two = expected(scenario(9999, specs, [first(2), first(0), first(1)]), each);
    expect(two).toMatchObject({ commissionCents: 1000, refundedCents: 6666, reversedCents: 667, status: 'refunded' });
  });

  test('credited after a parked refund, then reduced by a later one: the statement splits credit and reversal', () => {
    const specs: Spec[] = [
      sale,
      { role: 'refund', key: 'r0', amountCents: 2500, totalCents: 2500 },
      { role: 'refund', key: 'r1', amountCents: 2500, totalCents: 5000 },
    ];
    // r0 parks, the sale applies it (250 reversed), approval credits 750, r1 deducts 250 more.
    const got = expected(scenario(10_000, specs, [first(1), first(0), first(2)], 1), each);
    expect(got).toEqual({
      commissionCents: 1000,
      refundedCents: 5000,
      reversedCents: 500,
      status: 'refunded',
      balanceCents: 500,
      statement: { credits_cents: 750, reversals_cents: 250, balance_cents: 500, unpaid_commissions_cents: 500 },
      reviews: 0,
    });
  });

  test('an API refund before its sale is lost; its retry after the sale applies once', () => {
    const api: Traits = { ...each, refunds: 'api', disputes: null };
    const specs: Spec[] = [sale, { role: 'refund', key: 'r0', amountCents: 4000, totalCents: 4000 }];
    expect(expected(scenario(10_000, specs, [first(1), first(0)]), api).refundedCents).toBe(0);
    const retried = expected(scenario(10_000, specs, [first(1), first(0), first(1), first(1)]), api);
    expect(retried).toMatchObject({ refundedCents: 4000, reversedCents: 400 });
  });

  test('a Dodo dispute opened and lost reverses once; a won one asks for one review and restores nothing', () => {
    const opened: Spec = { role: 'chargeback', key: 'dp', amountCents: 6000, stage: 'opened' };
    const lost = expected(
      scenario(10_000, [sale, opened, { ...opened, stage: 'lost' }], [first(2), first(0), first(1)]),
      each,
    );
    expect(lost).toMatchObject({ refundedCents: 6000, reversedCents: 600, reviews: 0 });
    const won: Spec = { role: 'won', key: 'dp', stage: 'closed', reviewKey: 'dp' };
    // Won before the chargeback is applied: nothing to review then. Its redelivery (the same event)
    // is a duplicate and changes nothing; the same decision in a new envelope asks once.
    const order = [first(2), first(0), first(1), first(2)];
    expect(expected(scenario(10_000, [sale, opened, won], order), each)).toMatchObject({
      reversedCents: 600,
      reviews: 0,
    });
    const reissued = [...order, { spec: 2, copy: 'reissue' as const }, { spec: 2, copy: 'reissue' as const }];
    expect(expected(scenario(10_000, [sale, opened, won], reissued), each)).toMatchObject({ reviews: 1 });
  });

  test('refunds beyond the sale are capped; a chargeback after the whole sale was refunded applies nothing', () => {
    const specs: Spec[] = [
      sale,
      { role: 'refund', key: 'r0', amountCents: 8000, totalCents: 8000 },
      { role: 'refund', key: 'r1', amountCents: 8000, totalCents: 10_000 },
      { role: 'chargeback', key: 'dp', amountCents: 1000, stage: 'opened' },
      { role: 'won', key: 'dp', stage: 'closed', reviewKey: 'dp' },
    ];
    const got = expected(scenario(10_000, specs, [first(0), first(1), first(2), first(3), first(4)]), each);
    expect(got).toMatchObject({ refundedCents: 10_000, reversedCents: 1000, status: 'reversed', reviews: 0 });
  });

  test("Polar's running total reports every refund through it; the per-refund events then add nothing", () => {
    const polar: Traits = { ...each, disputes: null, also: 'totals' };
    const specs: Spec[] = [
      sale,
      { role: 'refund', key: 'r0', amountCents: 1000, totalCents: 1000 },
      { role: 'refund', key: 'r1', amountCents: 2000, totalCents: 3000 },
      { role: 'total', key: 't1', through: 1, totalCents: 3000 },
    ];
    const got = expected(scenario(10_000, specs, [first(0), first(3), first(2), first(1)]), polar);
    expect(got).toMatchObject({ refundedCents: 3000, reversedCents: 300 });
  });
});
