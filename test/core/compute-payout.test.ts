import { expect, test } from 'vitest';
import { computePayout, type PayableCommission } from '../../src/core/payouts/compute-payout.ts';

const c = (...cents: number[]): PayableCommission[] => cents.map((unpaidCents, i) => ({ id: i + 1, unpaidCents }));

test.each([
  {
    label: 'no cap, nothing owed: every commission, the partner receives their sum',
    candidates: c(1000, 2000),
    owed: 0,
    cap: null,
    ids: [1, 2],
    gross: 3000,
    netted: 0,
    amount: 3000,
  },
  {
    label: 'owed 1000 is netted first: the partner receives the sum less what is owed',
    candidates: c(3000),
    owed: 1000,
    cap: null,
    ids: [1],
    gross: 3000,
    netted: 1000,
    amount: 2000,
  },
  {
    label: 'owed more than the commissions: all netted, nothing received',
    candidates: c(300),
    owed: 500,
    cap: null,
    ids: [1],
    gross: 300,
    netted: 300,
    amount: 0,
  },
  {
    label: 'cap: oldest first while the amount fits',
    candidates: c(1000, 2000, 500),
    owed: 0,
    cap: 1500,
    ids: [1],
    gross: 1000,
    netted: 0,
    amount: 1000,
  },
  {
    label: 'cap: stops at the first that does not fit (never skips to a younger one)',
    candidates: c(1000, 2000, 500),
    owed: 0,
    cap: 2900,
    ids: [1],
    gross: 1000,
    netted: 0,
    amount: 1000,
  },
  {
    label: 'cap exactly reached',
    candidates: c(1000, 2000),
    owed: 0,
    cap: 3000,
    ids: [1, 2],
    gross: 3000,
    netted: 0,
    amount: 3000,
  },
  {
    label: 'cap counts what is received: netting lets a larger commission fit',
    candidates: c(3000),
    owed: 1000,
    cap: 2000,
    ids: [1],
    gross: 3000,
    netted: 1000,
    amount: 2000,
  },
  {
    label: 'cap smaller than the oldest commission: nothing',
    candidates: c(1000),
    owed: 0,
    cap: 999,
    ids: [],
    gross: 0,
    netted: 0,
    amount: 0,
  },
  {
    label: 'fully reversed commissions (nothing unpaid) are left out',
    candidates: c(0, 700),
    owed: 0,
    cap: null,
    ids: [2],
    gross: 700,
    netted: 0,
    amount: 700,
  },
  {
    label: 'a negative owed (cannot happen) counts as nothing owed',
    candidates: c(100),
    owed: -50,
    cap: null,
    ids: [1],
    gross: 100,
    netted: 0,
    amount: 100,
  },
])('$label', ({ candidates, owed, cap, ids, gross, netted, amount }) => {
  expect(computePayout(candidates, owed, cap)).toEqual({
    commissionIds: ids,
    commissionsCents: gross,
    nettedCents: netted,
    amountCents: amount,
  });
});

test('one payout stays within 2^53 - 1 cents: a commission that would pass it waits for the next payout', () => {
  const M = Number.MAX_SAFE_INTEGER;
  expect(
    computePayout(
      [
        { id: 1, unpaidCents: M - 2 },
        { id: 2, unpaidCents: M - 3 },
      ],
      0,
      null,
    ),
  ).toEqual({ commissionIds: [1], commissionsCents: M - 2, nettedCents: 0, amountCents: M - 2 });
});
