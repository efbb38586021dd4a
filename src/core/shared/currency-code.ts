import { z } from 'zod';
import { isIsoCurrency } from './currencies.ts';

/**
 * An upper-case ISO 4217 currency code with a minor unit: the key of per-currency settings and the
 * currency of a payout. Whether sales may be recorded in it is the `CURRENCIES` setting's to say.
 */
export const currencyCodeSchema = z
  .string()
  .refine(isIsoCurrency, { message: 'an upper-case ISO 4217 currency code such as USD' })
  .meta({ description: 'Upper-case ISO 4217 currency code', example: 'USD' });
