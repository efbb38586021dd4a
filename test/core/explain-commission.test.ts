import { describe, expect, test } from 'vitest';
import { describeCommission } from '../../src/core/reporting/explain-commission.ts';

/** Why a commission stands where it does, from its stored facts alone (explain_commission's reasons). */
const at = new Date('2026-11-01T10:00:00Z');
const base = {
  status: 'pending' as const,
  amountCents: 1_000,
  reversedCents: 0,
  currency: 'USD',
  reason: null,
  heldForReview: false,
  hold: null,
  creditedAt: null,
  paidAt: null,
  payout: null,
  createdAt: at,
};
const hold = { rules: [{ rule: 'self_referral' as const, evidence: { match: 'email' } }], held_at: at.toISOString() };
const refund = { appliedCents: 5_000, deductionCents: 500, reason: 'damaged', source: 'api', createdAt: at };

describe('describeCommission', () => {
  test.each([
    [
      'pending, not held: waits for the hold period, due 30 days after it was created',
      base,
      [],
      'pending',
      /hold period ends \(2026-12-01/,
    ],
    [
      'held by a fraud rule: the rule and its evidence, waiting for the merchant',
      { ...base, heldForReview: true, hold },
      [],
      'held',
      /self_referral.*"match":"email"[\s\S]*release or reject/,
    ],
    ['held without fraud rules: a disputed customer', { ...base, heldForReview: true }, [], 'held', /open dispute/],
    [
      'rejected as fraud: reversed, with the rejection',
      {
        ...base,
        status: 'reversed' as const,
        reversedCents: 1_000,
        reason: 'rejected as fraud: self_referral',
        hold: { ...hold, rejected_at: at.toISOString() },
      },
      [],
      'reversed',
      /Rejected as fraud by the merchant/,
    ],
    [
      'half refunded and credited: the refund’s share, what remains credited',
      { ...base, status: 'refunded' as const, reversedCents: 500, creditedAt: at, reason: 'damaged' },
      [refund],
      'partly_refunded',
      /50\.00 USD of the sale refunded, 5\.00 USD of the commission reversed[\s\S]*5\.00 USD remains/,
    ],
    [
      'paid: credited and paid, with the payout',
      { ...base, status: 'paid' as const, creditedAt: at, paidAt: at, payout: 9 },
      [],
      'paid',
      /payout 9/,
    ],
  ])('%s', (_label, facts, refunds, state, reasons) => {
    const r = describeCommission(facts, refunds, 30);
    expect(r.state).toBe(state);
    expect(r.reasons.join('\n')).toMatch(reasons);
  });

  test('a credited commission is not said to wait for the hold period', () => {
    const r = describeCommission({ ...base, status: 'approved', creditedAt: at }, [], 30);
    expect(r.state).toBe('credited');
    expect(r.reasons.join('\n')).not.toMatch(/hold period/);
  });
});
