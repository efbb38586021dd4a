/**
 * The reverse of alias-lookup.ts: a provider refund (or chargeback) whose sale is found neither by
 * its id nor through a link asks the provider's API which sale its payment paid (Stripe: the
 * invoice a PaymentIntent paid, for a basil invoice's sale recorded under `in_...` while no API key
 * was set, or whose own lookup was refused). What it learns is stored as a payment link, exactly as
 * `invoice_payment.paid` would; the refund is then applied, or, when that sale's event recorded no
 * sale (nobody referred it), finished as `not_found` instead of being parked.
 */
import type { CoreDeps } from '../deps.ts';
import type { RefundJob } from '../jobs/refund-job.ts';
import { buildLinkJob } from '../jobs/link-job.ts';
import { findLinkedTransactionId, linkPayment } from './link-payment.ts';
import { openProviderApiKey } from '../integrations/provider-api-keys.ts';
import { NEEDED_SCOPE } from './alias-lookup.ts';
import { applyRefund, type RefundResult } from './apply-refund.ts';
import { AppError } from '../shared/errors.ts';

/**
 * Links the refund's payment to the sale id the provider names, and returns that id; null when
 * nothing was learnt (no lookup on the job, a test refund, a payment linked already, no port or
 * API key, a refusal, or no paid sale). A PaymentIntent paying several invoices is linked to the
 * first (a link names one sale).
 * @throws RetryableError (from the port) when the provider could not answer: the event is retried.
 */
export async function lookUpRefundedSale(deps: CoreDeps, job: RefundJob): Promise<string | null> {
  const lookup = job.saleLookup;
  if (!lookup || job.test || !deps.lookupPaidSale) return null;
  if (await findLinkedTransactionId(deps.em, job.programId, lookup.paymentIntentId)) return null;
  const apiKey = await openProviderApiKey(deps, job.programId, lookup.provider);
  if (!apiKey) return null;
  const where = { programId: job.programId, provider: lookup.provider, paymentIntentId: lookup.paymentIntentId };
  const result = await deps.lookupPaidSale(lookup, apiKey);
  if (result.kind === 'refused') {
    deps.log.warn(
      { ...where, status: result.status },
      `${lookup.provider} refused the invoice payments lookup: the connection's API key needs ${NEEDED_SCOPE[lookup.provider]}; the refund waits for its sale or link`,
    );
    return null;
  }
  const transactionId = result.transactionIds[0];
  if (!transactionId) return null;
  const link = await linkPayment(
    deps,
    buildLinkJob({
      programId: job.programId,
      provider: lookup.provider,
      alias: lookup.paymentIntentId,
      transactionId,
      test: job.test,
      receivedAt: job.receivedAt,
    }),
  );
  deps.log.info({ ...where, transactionId, outcome: link.kind }, 'refunded payment linked through the provider API');
  return transactionId;
}

/**
 * The refund applied once more after `lookUpRefundedSale` linked its payment: its result, an
 * expected failure as an error outcome, or null while its sale is still missing (the caller then
 * parks it, or finishes it as `not_found` when that sale's event recorded none).
 */
export async function applyRefundAgain(
  deps: CoreDeps,
  job: RefundJob,
): Promise<RefundResult | { kind: 'error'; code: string; message: string } | null> {
  try {
    const result = await applyRefund(deps, job);
    return result.kind === 'sale_not_recorded' ? null : result;
  } catch (err) {
    if (err instanceof AppError) return { kind: 'error', code: err.code, message: err.message };
    throw err;
  }
}
