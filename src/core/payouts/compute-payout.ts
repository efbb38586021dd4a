/** A credited, unpaid commission offered to a payout: what remains of it, minor units. */
export type PayableCommission = { id: number; unpaidCents: number };

/**
 * What a payout pays, all in minor units of one currency.
 * - `commissionIds`: the whole commissions it pays, oldest first.
 * - `commissionsCents`: the sum of their unpaid remainders.
 * - `nettedCents`: the part of that sum kept to cover what the partner owes back.
 * - `amountCents`: what the partner receives (`commissionsCents - nettedCents`); the balance falls by it.
 */
export type PayoutPlan = {
  commissionIds: number[];
  commissionsCents: number;
  nettedCents: number;
  amountCents: number;
};

/**
 * Chooses the commissions a payout pays: whole commissions in the given (oldest-first) order, as
 * long as the amount received stays within `capCents` (`null`: no cap). `owedCents` (≥ 0) is
 * what the partner owes back from refunds of commissions already paid out; it is netted first.
 * Stops at the first commission that does not fit, so older commissions are always paid first.
 * One payout pays at most 2^53 - 1 cents, so every sum here is an exact integer; what does not
 * fit is left to the next payout.
 */
export function computePayout(
  candidates: readonly PayableCommission[],
  owedCents: number,
  capCents: number | null,
): PayoutPlan {
  const owed = Math.max(0, owedCents);
  const ids: number[] = [];
  let gross = 0;
  for (const c of candidates) {
    if (c.unpaidCents <= 0) continue;
    const next = gross + c.unpaidCents;
    if (next > Number.MAX_SAFE_INTEGER) break;
    if (capCents !== null && next - Math.min(owed, next) > capCents) break;
    ids.push(c.id);
    gross = next;
  }
  const netted = Math.min(owed, gross);
  return { commissionIds: ids, commissionsCents: gross, nettedCents: netted, amountCents: gross - netted };
}
