/**
 * The currencies a deployment accepts (the `CURRENCIES` setting) and the minor unit of each, from
 * the ISO 4217 table (the `currency-codes` package, ISO's list one as published). The minor unit
 * stored with every amount is ISO's, whatever a locale's display conventions say (CLDR shows IQD
 * or RSD without decimals; ISO gives them 3 and 2): amounts are never rounded to fit a display.
 */
import { data as iso4217 } from 'currency-codes';
import { CURRENCIES } from './vocabulary.ts';
import { AppError } from './errors.ts';

/**
 * Codes ISO 4217 lists with no minor unit ("N.A."): precious metals, bond-market units, the SDR and
 * the testing and "no currency" codes. The package writes them as 0 digits; nobody sells in them.
 */
const NO_MINOR_UNIT = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);

const ISO_DIGITS: ReadonlyMap<string, number> = new Map(
  iso4217.filter((c) => !NO_MINOR_UNIT.has(c.code) && Number.isInteger(c.digits)).map((c) => [c.code, c.digits]),
);

/** Digits of an ISO 4217 code's minor unit (`JPY` 0, `USD` 2, `KWD` 3), `null` for anything else. */
export function isoMinorUnitDigits(code: string): number | null {
  return ISO_DIGITS.get(code) ?? null;
}

/** Whether `code` is an upper-case ISO 4217 currency with a minor unit (the key of per-currency settings). */
export function isIsoCurrency(code: string): boolean {
  return ISO_DIGITS.has(code);
}

/** Every ISO 4217 currency with a minor unit, sorted. */
export const ISO_CURRENCIES: readonly string[] = [...ISO_DIGITS.keys()].sort();

/**
 * The currencies sales may be recorded in. `default`: the contract's USD, EUR and VND, and its
 * message; `extended`: those and what the `CURRENCIES` setting adds.
 */
export type AcceptedCurrencies = { kind: 'default' | 'extended'; codes: ReadonlySet<string> };

export const DEFAULT_CURRENCIES: AcceptedCurrencies = { kind: 'default', codes: new Set(CURRENCIES) };

/**
 * Reads the `CURRENCIES` setting: empty or unset is the contract's three, `all` every ISO 4217
 * currency with a minor unit, else a comma-separated list of ISO codes added to the three.
 * @throws Error naming the codes that are not ISO 4217 currencies.
 */
export function parseAcceptedCurrencies(setting: string | undefined): AcceptedCurrencies {
  const text = (setting ?? '').trim();
  if (!text) return DEFAULT_CURRENCIES;
  if (text.toLowerCase() === 'all') return { kind: 'extended', codes: new Set(ISO_CURRENCIES) };
  const listed = text
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  const unknown = listed.filter((c) => !ISO_DIGITS.has(c));
  if (unknown.length) {
    throw new Error(
      `not ISO 4217 currencies with a minor unit: ${unknown.join(', ')} (use codes such as GBP,JPY,KWD or "all")`,
    );
  }
  return { kind: 'extended', codes: new Set([...CURRENCIES, ...listed]) };
}

/** The accepted codes in a stable order: the contract's USD, EUR, VND, then the others by code. */
export function listAcceptedCurrencies(accepted: AcceptedCurrencies): string[] {
  const others = [...accepted.codes].filter((c) => !(CURRENCIES as readonly string[]).includes(c)).sort();
  return [...CURRENCIES, ...others];
}

/**
 * The upper-cased code when sales may be recorded in it.
 * @throws AppError `unsupported_currency` (the contract's message and details under the default).
 */
export function requireAcceptedCurrency(accepted: AcceptedCurrencies | undefined, currency: string): string {
  const code = currency.toUpperCase();
  const { kind, codes } = accepted ?? DEFAULT_CURRENCIES;
  if (codes.has(code)) return code;
  if (kind === 'default') {
    throw new AppError('unsupported_currency', `Currency "${currency}" is not supported; use USD, EUR or VND`, {
      currency,
      supported: CURRENCIES,
    });
  }
  throw new AppError('unsupported_currency', `Currency "${currency}" is not enabled on this service (CURRENCIES)`, {
    currency,
    supported: listAcceptedCurrencies(accepted ?? DEFAULT_CURRENCIES),
  });
}
