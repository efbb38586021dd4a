import type { RouteContext } from '../http-context.ts';
import { listAcceptedCurrencies, parseAcceptedCurrencies } from '../../core/shared/currencies.ts';
import { minorUnitDigits } from '../../core/shared/money.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { currenciesBody, type CurrenciesBody } from '../wire/currencies.ts';

/** The currencies this deployment records sales in (the `CURRENCIES` setting), for forms and scripts. */
export function registerCurrencyRoutes(ctx: RouteContext, { on }: AdminHelpers): void {
  const accepted = parseAcceptedCurrencies(ctx.config.CURRENCIES);
  const body: CurrenciesBody = {
    setting: accepted.kind,
    currencies: listAcceptedCurrencies(accepted).map((code) => ({ code, minor_unit_digits: minorUnitDigits(code) })),
  };
  on('get', '/currencies', async () => body);
}

export const currencyOperations = [
  adminOperation('get', '/currencies', 'listCurrencies', 'The currencies sales may be recorded in', {
    responses: {
      200: {
        description: 'USD, EUR and VND, then the others by code, with their ISO 4217 minor units',
        schema: currenciesBody,
      },
    },
  }),
];
