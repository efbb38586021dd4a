import { z } from 'zod';

const cents = z.number().int();

/** `GET /admin/programs/:id/stats/commissions` (extension): a period's commissions per currency by what became of them. */
export const commissionSummaryBody = z.strictObject({
  commissions: z.array(
    z.strictObject({
      currency: z.string().length(3),
      earned_cents: cents.meta({ description: 'What remains after refunds of the commissions not held for review' }),
      held_cents: cents.meta({ description: 'What remains of the commissions held for review' }),
      reversed_cents: cents.meta({ description: 'What refunds and reversals took back' }),
    }),
  ),
});
export type CommissionSummaryBody = z.infer<typeof commissionSummaryBody>;
