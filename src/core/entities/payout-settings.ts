/**
 * A program's payout settings: the rail a payout run pays through, the minimum payout per
 * currency, and the schedule. Stored as given (snake_case JSON); null on a program: manual runs
 * through no rail, no minimum. Zod and the vocabulary only: the wire schemas and the dashboard's
 * type check read this file.
 */
import { z } from 'zod';
import { PAYOUT_RAILS } from '../shared/vocabulary.ts';
import { currencyCodeSchema } from '../shared/currency-code.ts';

export const payoutSettingsSchema = z.strictObject({
  /** Where runs send money (default `manual`: runs only mark payouts `processing`). */
  rail: z.enum(PAYOUT_RAILS).default('manual'),
  /** Per currency, minor units: a partner whose payable amount is below it is left for a later run. */
  minimum_cents: z.partialRecord(currencyCodeSchema, z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).default({}),
  /**
   * `manual` (default): runs only when asked. `monthly`: the sweeper starts a run per currency on
   * `day_of_month` (UTC), paying commissions credited at least `hold_days` days before the run.
   */
  schedule: z.enum(['manual', 'monthly']).default('manual'),
  day_of_month: z.number().int().min(1).max(28).default(1),
  hold_days: z.number().int().min(0).max(365).default(0),
  /**
   * Partners may ask for a payout in the portal (an open payout, at least the minimum); the next
   * run pays it. Off by default; settings stored before it existed read as off.
   */
  partner_requests: z.boolean().default(false),
});
export type PayoutSettings = z.output<typeof payoutSettingsSchema>;

/** The settings of a program that stored none. */
export const DEFAULT_PAYOUT_SETTINGS: PayoutSettings = payoutSettingsSchema.parse({});
