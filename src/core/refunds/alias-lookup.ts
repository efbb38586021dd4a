/**
 * The port through which core asks a provider's API for the id its refunds will name, for a sale
 * recorded under another one: a Stripe invoice of API version 2025-03-31.basil or later names no
 * PaymentIntent, so its sale is recorded under the invoice id while refunds and disputes name the
 * PaymentIntent. Stripe's `invoice_payment.paid` webhook links the two (a link job); when the
 * program's Stripe connection has an API key, the service asks Stripe's Invoice Payments list
 * instead of waiting for that event, and stores the same link.
 * The adapter stays pure: it only marks the sale (`SaleJob.aliasLookup`); the implementation lives
 * with the provider (providers/stripe/invoice-payments.ts) and reaches core through `CoreDeps`.
 */
import type { CoreDeps } from '../deps.ts';
import type { AliasLookup, SaleJob } from '../jobs/sale-job.ts';
import { buildLinkJob } from '../jobs/link-job.ts';
import { linkPayment } from './link-payment.ts';
import { applyParkedRefundsFor, type Effects } from './parked-refunds.ts';
import { openProviderApiKey } from '../integrations/provider-api-keys.ts';
import { typedSql } from '../db/sql.ts';

/** What the key needs, named in the warning when the provider refuses. */
export const NEEDED_SCOPE: Readonly<Record<AliasLookup['provider'], string>> = {
  stripe: 'a restricted key with Invoices: Read (invoice payments are read under Invoices)',
};

/**
 * After a sale marked with `aliasLookup` was recorded (or found recorded, on a retry): asks the
 * provider for its alias and links it exactly as a link job does, then applies the refunds parked
 * under the alias (a refund that arrived before the sale). Returns their notifications and deliveries.
 * Nothing is asked for a test sale, a sale already linked (its aliases' parked refunds are applied
 * instead), or without the port or an API key (the provider's link event still links it). A
 * refusal is a warning: the sale stays unlinked.
 * @throws RetryableError (from the port) when the provider could not answer: the event is retried.
 */
export async function lookUpSaleAlias(deps: CoreDeps, job: SaleJob): Promise<Effects> {
  const lookup = job.aliasLookup;
  const transactionId = job.transactionId;
  if (!lookup || !transactionId || job.test || !deps.lookupPaymentAlias) return none();
  const where = { programId: job.programId, provider: lookup.provider, invoiceId: lookup.invoiceId };
  // Linked already (the link event came first, or a refund's lookup, refund-sale-lookup.ts):
  // nothing to ask, but refunds parked under those aliases are applied now, not by the sweeper.
  const known = await linkedAliases(deps, job.programId, transactionId);
  if (known.length) return applyParkedRefundsFor(deps, job.programId, known);
  const apiKey = await openProviderApiKey(deps, job.programId, lookup.provider);
  if (!apiKey) {
    deps.log.debug(where, 'no API key on the connection: the sale waits for the link event');
    return none();
  }
  const result = await deps.lookupPaymentAlias(lookup, apiKey);
  if (result.kind === 'refused') {
    deps.log.warn(
      { ...where, status: result.status },
      `${lookup.provider} refused the invoice payments lookup: the connection's API key needs ${NEEDED_SCOPE[lookup.provider]}; refunds naming the PaymentIntent wait for invoice_payment.paid`,
    );
    return none();
  }
  if (!result.aliases.length) {
    deps.log.info(where, 'the invoice has no paid PaymentIntent to link');
    return none();
  }
  const linked: string[] = [];
  for (const alias of result.aliases) {
    const link = await linkPayment(
      deps,
      buildLinkJob({
        programId: job.programId,
        provider: lookup.provider,
        alias,
        transactionId,
        test: job.test,
        receivedAt: job.receivedAt,
      }),
    );
    deps.log.info({ ...where, alias, outcome: link.kind }, 'payment linked through the provider API');
    if (link.kind === 'linked') linked.push(alias);
  }
  return linked.length ? applyParkedRefundsFor(deps, job.programId, linked) : none();
}

const none = (): Effects => ({ notificationIds: [], deliveryIds: [] });

/** The aliases already naming the sale. */
async function linkedAliases(deps: CoreDeps, programId: number, transactionId: string): Promise<string[]> {
  const rows = await typedSql(deps.em)
    .selectFrom('payment_link')
    .select('alias')
    .where('program_id', '=', programId)
    .where('transaction_id', '=', transactionId)
    .limit(20)
    .execute();
  return rows.map((r) => r.alias);
}
