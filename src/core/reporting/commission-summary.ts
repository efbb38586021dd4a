import type { CoreDeps } from '../deps.ts';
import { bigCents, exactText, typedSql } from '../db/sql.ts';
import { exactAmount } from '../shared/money.ts';

/**
 * A program's commissions created in [from, to] split by what became of them, per currency, in
 * minor units: `earnedCents` what remains after refunds of those not held for review (pending ones
 * included: they are earned, waiting for the hold period), `heldCents` what remains of those held for
 * review, `reversedCents` what refunds and reversals took back of all of them. Read from the
 * commission rows (the program's `created_at` index), not the daily rollups, which keep the net only.
 */
export type CommissionSummary = Array<{
  currency: string;
  earnedCents: number;
  heldCents: number;
  reversedCents: number;
}>;

export async function summariseCommissions(
  deps: CoreDeps,
  input: { programId: number; from: Date; to: Date },
): Promise<CommissionSummary> {
  const rows = await typedSql(deps.em)
    .selectFrom('commission')
    .select((eb) => [
      'currency',
      exactText(
        eb.fn.sum(
          eb
            .case()
            .when('held_for_review', '=', true)
            .then(eb.lit(0))
            .else(eb('amount_cents', '-', eb.ref('reversed_cents')))
            .end(),
        ),
      ).as('earned'),
      exactText(
        eb.fn.sum(
          eb
            .case()
            .when('held_for_review', '=', true)
            .then(eb('amount_cents', '-', eb.ref('reversed_cents')))
            .else(eb.lit(0))
            .end(),
        ),
      ).as('held'),
      exactText(eb.fn.sum('reversed_cents')).as('reversed'),
    ])
    .where('program_id', '=', input.programId)
    .where('created_at', '>=', input.from)
    .where('created_at', '<=', input.to)
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({
    currency: r.currency,
    earnedCents: exactAmount(bigCents(r.earned)),
    heldCents: exactAmount(bigCents(r.held)),
    reversedCents: exactAmount(bigCents(r.reversed)),
  }));
}
