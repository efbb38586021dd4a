import type { IProgram } from '../entities/program.ts';
import type { SaleJob } from '../jobs/sale-job.ts';

/**
 * The commission base. API sales: `amount_cents` as sent (spec). Provider sales (origin
 * `provider`, SaleJob.origin) carry what the customer paid with its tax; unless the program opts
 * in to tax (`providerAmountIncludesTax`), the tax is taken out and the payment kept as
 * `paidCents`, against which provider refunds are scaled (apply-refund.ts).
 */
export function computeSaleAmount(program: IProgram, job: SaleJob): { amountCents: number; paidCents: number | null } {
  const paid = job.amountCents as number;
  const tax = job.taxCents ?? 0;
  if (job.origin !== 'provider' || program.providerAmountIncludesTax || tax <= 0 || tax >= paid)
    return { amountCents: paid, paidCents: null };
  return { amountCents: paid - tax, paidCents: paid };
}
