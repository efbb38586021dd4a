import { z } from 'zod';

/**
 * `GET /admin/currencies`: the currencies sales may be recorded in (USD, EUR, VND first, then the
 * others by code), with their ISO 4217 minor units.
 */
export const currenciesBody = z.strictObject({
  setting: z.enum(['default', 'extended']).meta({
    description: "`default`: the contract's USD, EUR and VND; `extended`: those and what `CURRENCIES` adds",
  }),
  currencies: z.array(
    z.strictObject({
      code: z.string().length(3),
      minor_unit_digits: z.number().int().min(0).meta({ description: 'ISO 4217 digits of the minor unit' }),
    }),
  ),
});
export type CurrenciesBody = z.infer<typeof currenciesBody>;
