/**
 * The state of one ledger verification (verify-ledger.ts): the first difference found per partner,
 * how many in all, the rows read, and the balances the recorded inputs call for, per partner and
 * currency. Its own arithmetic: amounts are bigints, rounding is written out here.
 */

/** One stored value that differs from what the recorded inputs give. */
export type LedgerDifference = {
  /** The partner whose money it is (null: a row of no partner). */
  partnerId: number | null;
  table: string;
  /** The row's id (null: a row that should exist and does not). */
  rowId: number | null;
  field: string;
  expected: string;
  stored: string;
  /** The difference in plain words. */
  message: string;
};

/** `round_half_up(n / d)` for n ≥ 0, d > 0, written apart from the product's money helpers. */
export function roundHalfUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  return (n % d) * 2n >= d ? q + 1n : q;
}

export class LedgerCheck {
  readonly firsts = new Map<number | null, LedgerDifference>();
  differences = 0;
  rows = 0;
  /** partner → currency → the sum of the postings the inputs call for. */
  readonly expectedBalances = new Map<number, Map<string, bigint>>();

  differ(d: Omit<LedgerDifference, 'message'> & { message?: string }): void {
    this.differences++;
    if (this.firsts.has(d.partnerId)) return;
    const row = d.rowId === null ? `a ${d.table} row` : `${d.table} ${d.rowId}`;
    const message = d.message ?? `${row}: ${d.field} should be ${d.expected}, stored ${d.stored}`;
    this.firsts.set(d.partnerId, { ...d, message });
  }

  /** Compares and records a difference when they are not equal. */
  same(
    expected: bigint | string | boolean | null,
    stored: bigint | string | boolean | null,
    at: { partnerId: number | null; table: string; rowId: number | null; field: string; why?: string },
  ): boolean {
    if (expected === stored) return true;
    const e = String(expected ?? 'none');
    const s = String(stored ?? 'none');
    const row = at.rowId === null ? `a ${at.table} row` : `${at.table} ${at.rowId}`;
    this.differ({
      ...at,
      expected: e,
      stored: s,
      message: `${row}: ${at.field} should be ${e}${at.why ? ` (${at.why})` : ''}, stored ${s}`,
    });
    return false;
  }

  expect(partnerId: number, currency: string, delta: bigint): void {
    let byCurrency = this.expectedBalances.get(partnerId);
    if (!byCurrency) this.expectedBalances.set(partnerId, (byCurrency = new Map()));
    byCurrency.set(currency, (byCurrency.get(currency) ?? 0n) + delta);
  }

  /** The differences, first per partner, partners in id order. */
  report(): LedgerDifference[] {
    return [...this.firsts.values()].sort((a, b) => (a.partnerId ?? 0) - (b.partnerId ?? 0));
  }
}

/** A posting the inputs call for, keyed by its cause. */
export type ExpectedPosting = {
  key: string;
  partnerId: number;
  currency: string;
  kind: string;
  delta: bigint;
  why: string;
};

/** A stored posting as the checks read it. */
export type StoredPosting = {
  id: number;
  partner_id: number;
  currency: string;
  kind: string;
  delta_cents: string;
  commission_id: number | null;
  refund_id: number | null;
  payout_id: number | null;
};

/**
 * Matches the stored postings of a set of causes against the expected ones: a wrong amount, a
 * posting missing, one nothing calls for. `keyOf` gives a stored posting's cause key.
 */
export function matchPostings(
  check: LedgerCheck,
  expected: ExpectedPosting[],
  stored: StoredPosting[],
  keyOf: (p: StoredPosting) => string,
): void {
  const byKey = new Map<string, StoredPosting[]>();
  for (const p of stored) {
    const k = keyOf(p);
    byKey.set(k, [...(byKey.get(k) ?? []), p]);
  }
  for (const e of expected) {
    check.expect(e.partnerId, e.currency, e.delta);
    const list = byKey.get(e.key);
    const found = list?.shift();
    if (!found) {
      check.differ({
        partnerId: e.partnerId,
        table: 'balance_entry',
        rowId: null,
        field: 'delta_cents',
        expected: e.delta.toString(),
        stored: 'none',
        message: `balance_entry missing: a ${e.kind} posting of ${e.delta} ${e.currency} for ${e.why}, none stored`,
      });
      continue;
    }
    const at = { partnerId: e.partnerId, table: 'balance_entry', rowId: found.id };
    if (!check.same(e.delta, BigInt(found.delta_cents), { ...at, field: 'delta_cents', why: e.why })) continue;
    if (!check.same(e.partnerId.toString(), found.partner_id.toString(), { ...at, field: 'partner_id' })) continue;
    check.same(e.currency, found.currency, { ...at, field: 'currency' });
  }
  for (const left of byKey.values())
    for (const p of left)
      check.differ({
        partnerId: p.partner_id,
        table: 'balance_entry',
        rowId: p.id,
        field: 'kind',
        expected: 'none',
        stored: p.kind,
        message: `balance_entry ${p.id}: a ${p.kind} posting of ${p.delta_cents} ${p.currency} that no recorded sale, refund or payout calls for`,
      });
}
