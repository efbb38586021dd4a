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

const digitsByCode = new Map<string, number>();

/**
 * Digits after the decimal point of a currency's minor unit, from the platform's own currency data
 * (`Intl.NumberFormat`), so the service and the dashboard's browser agree: USD and EUR 2, VND and
 * JPY 0, KWD 3. A code it does not know, or no code, has 2.
 */
export function minorUnitDigits(currency: string): number {
  const code = currency.toUpperCase();
  const known = digitsByCode.get(code);
  if (known !== undefined) return known;
  let digits: number;
  try {
    const resolved = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions();
    digits = resolved.maximumFractionDigits ?? 2;
  } catch {
    return 2; // not a well-formed code: not cached
  }
  digitsByCode.set(code, digits);
  return digits;
}

/** Minor units as an exact decimal in the currency's precision (`-12345` USD: `-123.45`). */
function decimal(cents: string | number | bigint, currency: string): string {
  const digits = minorUnitDigits(currency);
  const big = BigInt(cents);
  const abs = (big < 0n ? -big : big).toString().padStart(digits + 1, '0');
  const whole = digits ? `${abs.slice(0, -digits)}.${abs.slice(-digits)}` : abs;
  return big < 0n ? `-${whole}` : whole;
}

/**
 * Minor units (integer text or number) as a decimal string in the currency's precision, exact at
 * any size: `-12345` USD is `-123.45`, `5` EUR is `0.05`, `50000` VND is `50000`. The form of
 * files (exports, payout files); `formatMoney` is the form for people. Null stays null.
 */
export function formatMinorUnits(cents: string | number | null | undefined, currency: string): string | null {
  return cents === null || cents === undefined ? null : decimal(cents, currency);
}

/**
 * Minor units for people (the dashboard, the partner portal, the service's messages): the decimal
 * in the currency's precision with thousands grouped, then the code. `123456` USD is
 * `1,234.56 USD`, `250000` VND is `250,000 VND`, `1234` KWD is `1.234 KWD`; exact at any size.
 */
export function formatMoney(cents: string | number | bigint, currency: string): string {
  const [whole, fraction] = decimal(cents, currency).split('.');
  const grouped = (whole as string).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${grouped}${fraction === undefined ? '' : `.${fraction}`} ${currency}`;
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
