/**
 * Pure money maths. Every amount is an integer in minor units; products are taken in BigInt so
 * large VND amounts times basis points never lose precision, and results are rounded half-up.
 */

/**
 * A sum of amounts (from SQL as text, or a BigInt) as a JSON-ready value: a plain number while it
 * is exact, else an exact raw JSON integer (`JSON.rawJSON`), so totals past 2^53 cents are written
 * digit for digit instead of rounded. Typed as a number for the wire shapes.
 */
export function exactAmount(v: bigint | string): number {
  const big = typeof v === 'bigint' ? v : BigInt(v);
  const n = Number(big);
  return Number.isSafeInteger(n) ? n : (JSON as unknown as { rawJSON(text: string): number }).rawJSON(big.toString());
}

/** Digits after the decimal point of each currency's minor unit (ISO 4217: VND has none). */
const MINOR_DIGITS: Record<string, number> = { USD: 2, EUR: 2, VND: 0 };

/**
 * Minor units (integer text or number) as a decimal string in the currency's precision, exact at
 * any size: `-12345` USD is `-123.45`, `5` EUR is `0.05`, `50000` VND is `50000`. Null stays null.
 */
export function formatMinorUnits(cents: string | number | null | undefined, currency: string): string | null {
  if (cents === null || cents === undefined) return null;
  const digits = MINOR_DIGITS[currency] ?? 2;
  const big = BigInt(cents);
  const abs = (big < 0n ? -big : big).toString().padStart(digits + 1, '0');
  const whole = digits ? `${abs.slice(0, -digits)}.${abs.slice(-digits)}` : abs;
  return big < 0n ? `-${whole}` : whole;
}

/** `round_half_up(numerator / denominator)` for non-negative integers. */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  return (2n * numerator + denominator) / (2n * denominator);
}

/** `amountCents × bps / 10 000`, rounded half-up: the commission on a sale at a rate in basis points. */
export function calculateCommission(amountCents: number, rateBps: number): number {
  return Number(divideRoundHalfUp(BigInt(amountCents) * BigInt(rateBps), 10_000n));
}

/** The platform fee uses the same rule as the commission, on the amount as sent. */
export const calculatePlatformFee = calculateCommission;

/**
 * Commission to reverse for one refund, derived from cumulative totals so partial refunds never
 * drift: `round(commission × refundedTotal / saleAmount) − alreadyReversed`, where
 * `refundedTotal` already includes this refund (capped at the sale amount). When the sale is fully
 * refunded the result is exactly the remaining commission.
 */
export function computeReversal(input: {
  commissionCents: number;
  saleAmountCents: number;
  refundedTotalCents: number;
  alreadyReversedCents: number;
}): number {
  const { commissionCents, saleAmountCents, refundedTotalCents, alreadyReversedCents } = input;
  const refunded = Math.min(refundedTotalCents, saleAmountCents);
  const target =
    refunded >= saleAmountCents
      ? BigInt(commissionCents)
      : divideRoundHalfUp(BigInt(commissionCents) * BigInt(refunded), BigInt(saleAmountCents));
  return Math.max(0, Number(target) - alreadyReversedCents);
}
