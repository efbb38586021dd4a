import { describe, expect, test } from 'vitest';
import {
  calculateCommission,
  computeReversal,
  formatMinorUnits,
  formatMoney,
  minorUnitDigits,
  rescaleMinorUnits,
} from '../../src/core/shared/money.ts';

describe('calculateCommission', () => {
  test.each([
    ['10% of 49.00', 4900, 1000, 490],
    ['half a cent rounds up', 5, 1000, 1],
    ['below half a cent rounds down', 4, 1000, 0],
    ['0% earns nothing', 4900, 0, 0],
    ['100% earns everything', 4900, 10_000, 4900],
    ['15.55% of 1 234 567', 1_234_567, 1555, 191_975],
    ['large VND amounts stay exact', 123_456_789_012, 3333, 41_148_147_778],
  ])('%s', (_label, amount, bps, expected) => {
    expect(calculateCommission(amount, bps)).toBe(expected);
  });
});

describe('computeReversal', () => {
  test.each([
    ['a quarter refunded reverses a quarter', 1000, 10_000, 2500, 0, 250],
    ['the second half after a quarter already reversed', 1000, 10_000, 5000, 250, 250],
    ['full refund reverses exactly what remains', 1000, 10_000, 10_000, 333, 667],
    ['over-refund is capped at the sale amount', 1000, 10_000, 20_000, 0, 1000],
    ['thirds never drift: 1/3', 100, 999, 333, 0, 33],
    ['thirds never drift: 2/3', 100, 999, 666, 33, 34],
    ['thirds never drift: 3/3', 100, 999, 999, 67, 33],
    ['nothing more when the cumulative target was already reached', 100, 1000, 500, 60, 0],
  ])('%s', (_label, commissionCents, saleAmountCents, refundedTotalCents, alreadyReversedCents, expected) => {
    expect(computeReversal({ commissionCents, saleAmountCents, refundedTotalCents, alreadyReversedCents })).toBe(
      expected,
    );
  });
});

describe('minor units of each currency', () => {
  test.each([
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['VND', 0],
    ['KWD', 3],
    // ISO 4217's minor unit, not the CLDR display rule (which shows these without decimals).
    ['IQD', 3],
    ['RSD', 2],
    ['LAK', 2],
    ['LBP', 2],
    ['CLF', 4],
    ['usd', 2],
    ['', 2],
    ['not a code', 2],
  ])('%s has %i digits', (currency, digits) => {
    expect(minorUnitDigits(currency)).toBe(digits);
  });

  test.each([
    ['USD', 123_456, '1,234.56 USD', '1234.56'],
    ['USD', 5, '0.05 USD', '0.05'],
    ['USD', -1_000_000, '-10,000.00 USD', '-10000.00'],
    ['JPY', 4_900, '4,900 JPY', '4900'],
    ['VND', 250_000, '250,000 VND', '250000'],
    ['VND', 999, '999 VND', '999'],
    ['KWD', 1_234, '1.234 KWD', '1.234'],
    ['KWD', 12_345_678, '12,345.678 KWD', '12345.678'],
    ['IQD', 1_500, '1.500 IQD', '1.500'],
    ['RSD', 123_456, '1,234.56 RSD', '1234.56'],
  ])('%s %i: %s for people, %s in files', (currency, cents, forPeople, inFiles) => {
    expect(formatMoney(cents, currency)).toBe(forPeople);
    expect(formatMinorUnits(cents, currency)).toBe(inFiles);
  });

  test('exact past 2^53 minor units', () => {
    expect(formatMoney(12_345_678_901_234_567_890n, 'VND')).toBe('12,345,678,901,234,567,890 VND');
    expect(formatMoney('-12345678901234567890', 'USD')).toBe('-123,456,789,012,345,678.90 USD');
    expect(formatMinorUnits(null, 'USD')).toBeNull();
  });
});

describe('rescaleMinorUnits: a provider’s minor unit into ISO’s', () => {
  test.each([
    ['same digits: unchanged', 4_999, 2, 2, 4_999],
    ['fewer digits at the provider (MGA at Stripe): times 100', 1_500, 0, 2, 150_000],
    ['more digits at the provider (ISK at Stripe), whole units: divided', 500_000, 2, 0, 5_000],
    ['more digits with a fraction left over: refused, never rounded', 500_050, 2, 0, null],
    ['beyond the safe integers: refused', Number.MAX_SAFE_INTEGER, 0, 2, null],
  ])('%s', (_label, amount, from, to, expected) => {
    expect(rescaleMinorUnits(amount, from, to)).toBe(expected);
  });
});
