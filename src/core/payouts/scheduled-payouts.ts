import type { CoreDeps } from '../deps.ts';
import { Program } from '../entities/program.ts';
import { createPayoutRun, type PayoutRunResult } from './payout-runs.ts';
import { sendRunTransfers } from './payout-transfers.ts';
import { typedSql } from '../db/sql.ts';
import type { Currency } from '../shared/vocabulary.ts';

/**
 * The monthly schedule (payout-settings.ts): from the program's `day_of_month` (UTC) on, one run
 * per currency with positive balances, once per month (the run names its due day, unique per
 * program and currency, so sweepers on several workers, or a later sweep the same month, start it
 * once). A Stripe Connect run makes its transfers at once. Returns the runs this call created.
 */
export async function runScheduledPayouts(deps: CoreDeps): Promise<PayoutRunResult[]> {
  const now = deps.clock();
  const programs = (
    await deps.em.find(Program, { payoutSettings: { $ne: null } }, { disableIdentityMap: true })
  ).filter((p) => p.payoutSettings?.schedule === 'monthly' && now.getUTCDate() >= p.payoutSettings.day_of_month);
  const created: PayoutRunResult[] = [];
  for (const program of programs) {
    const day = String(program.payoutSettings!.day_of_month).padStart(2, '0');
    const scheduledFor = `${now.toISOString().slice(0, 7)}-${day}`;
    const currencies = await typedSql(deps.em)
      .selectFrom('partner_balance as b')
      .innerJoin('partner as p', 'p.id', 'b.partner_id')
      .select('b.currency')
      .distinct()
      .where('p.program_id', '=', program.id)
      .where('b.balance_cents', '>', 0)
      .execute();
    for (const { currency } of currencies) {
      const exists = await typedSql(deps.em)
        .selectFrom('payout_run')
        .select('id')
        .where('program_id', '=', program.id)
        .where('currency', '=', currency)
        .where('scheduled_for', '=', scheduledFor)
        .executeTakeFirst();
      if (exists) continue;
      const run = await createPayoutRun(deps, program.id, { currency: currency as Currency, scheduledFor });
      created.push(run);
      if (run.run.rail === 'stripe_connect' && run.payouts.length)
        await sendRunTransfers(deps, program.id, run.run.id).then(
          (report) => run.deliveryIds.push(...report.deliveryIds),
          (err: unknown) =>
            deps.log.error(
              { programId: program.id, runId: run.run.id, err: (err as Error).message },
              'scheduled Stripe Connect run: transfers not sent; send them with POST .../payout-runs/:runId/transfers',
            ),
        );
    }
  }
  return created;
}
