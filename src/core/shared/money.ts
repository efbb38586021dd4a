/**
 * Pure money maths. Every amount is an integer in minor units; products are taken in BigInt so
 * large VND amounts times basis points never lose precision, and results are rounded half-up.
 */
import { isoMinorUnitDigits } from './currencies.ts';

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

/**
 * Digits after the decimal point of a currency's minor unit: ISO 4217's (currencies.ts), the unit
 * every amount is stored in, so the service, its files and the dashboard show every stored digit
 * (USD and EUR 2, VND and JPY 0, KWD and IQD 3, RSD 2 although CLDR displays it without). A code
 * ISO does not list, or no code, has 2.
 */
export function minorUnitDigits(currency: string): number {
  return isoMinorUnitDigits(currency.toUpperCase()) ?? 2;
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

/**
 * An amount given in `fromDigits` decimals (a provider's own minor unit) in `toDigits` decimals
 * (ISO's), exactly: `null` when it would lose a digit (ISK 12345 in Stripe's two decimals is not a
 * whole króna) or leave the safe integers.
 */
export function rescaleMinorUnits(amount: number, fromDigits: number, toDigits: number): number | null {
  if (!Number.isSafeInteger(amount)) return null;
  const factor = 10n ** BigInt(Math.abs(toDigits - fromDigits));
  const big = BigInt(amount);
  if (toDigits < fromDigits && big % factor !== 0n) return null;
  const out = Number(toDigits >= fromDigits ? big * factor : big / factor);
  return Number.isSafeInteger(out) ? out : null;
}
