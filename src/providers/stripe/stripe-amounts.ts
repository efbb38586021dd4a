/**
 * Stripe's minor unit per currency, which is not always ISO 4217's, and the conversion of its
 * amounts into the ISO minor units every amount here is stored in (and back, for transfers).
 * Source: https://docs.stripe.com/currencies (sections "Zero-decimal currencies",
 * "Three-decimal currencies" and "Special cases"), as of 2026-11:
 *
 * - Zero-decimal: the amount is whole units. MGA is among them although ISO gives it 2 digits,
 *   so 500 MGA from Stripe is 50000 ISO minor units.
 * - Three-decimal (BHD, JOD, KWD, OMR, TND): three digits like ISO; Stripe wants the last one 0.
 * - Special cases: ISK is two-decimal in Stripe's API although whole krónur only (amounts
 *   divisible by 100) while ISO gives it 0 digits: 50000 from Stripe is 500 ISK. HUF and TWD are
 *   two-decimal for charges like ISO (Stripe pays them out in whole units only). UGX is in
 *   Stripe's zero-decimal list, like ISO.
 * - Every other currency: two decimals.
 */
import { isoMinorUnitDigits } from '../../core/shared/currencies.ts';
import { rescaleMinorUnits } from '../../core/shared/money.ts';
import { readCurrency, readInteger } from '../read-payload.ts';

const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** Digits of Stripe's minor unit of an upper-case code. */
export function stripeMinorUnitDigits(code: string): number {
  return ZERO_DECIMAL.has(code) ? 0 : THREE_DECIMAL.has(code) ? 3 : 2;
}

/**
 * A Stripe amount (an integer in Stripe's minor unit of `currency`) in ISO minor units; `null` when
 * it is no integer. `inexact`: ISO minor units cannot say it (ISK with a fraction of a króna): the
 * event is refused (`unsupported_minor_units`), never rounded. A missing or non-ISO currency leaves
 * the amount as sent (the core answers `unsupported_currency` for a code it does not accept).
 */
export function readStripeAmount(amount: unknown, currency: unknown): number | null | 'inexact' {
  const value = readInteger(amount);
  const code = readCurrency(currency);
  const iso = code === null ? null : isoMinorUnitDigits(code);
  if (value === null || code === null || iso === null) return value;
  return rescaleMinorUnits(value, stripeMinorUnitDigits(code), iso) ?? 'inexact';
}

/** ISO minor units as Stripe's amount of `currency` (a transfer); `null` when not exact. */
export function toStripeAmount(isoAmount: number, currency: string): number | null {
  const code = currency.toUpperCase();
  const iso = isoMinorUnitDigits(code);
  return iso === null ? null : rescaleMinorUnits(isoAmount, iso, stripeMinorUnitDigits(code));
}
