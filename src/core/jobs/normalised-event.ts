import { z } from 'zod';
import { disputeWonJobSchema } from './dispute-won-job.ts';
import { linkJobSchema } from './link-job.ts';
import { refundJobSchema } from './refund-job.ts';
import { saleJobSchema } from './sale-job.ts';
import { transferReversedJobSchema } from './transfer-reversed-job.ts';

/** The jobs a provider event may carry (what an inbox row runs on replay). */
export const providerJobSchema = z.discriminatedUnion('kind', [
  saleJobSchema,
  refundJobSchema,
  linkJobSchema,
  disputeWonJobSchema,
  transferReversedJobSchema,
]);
export type ProviderJob = z.infer<typeof providerJobSchema>;

/** What a provider adapter turns one verified webhook into (stored as the inbox row's `normalised`). */
export type NormalisedEvent = {
  /** Unique per provider: the inbox's idempotency key (no `:` allowed). */
  dedupeKey: string;
  /** Provider's event name, e.g. `checkout.session.completed`. */
  eventType: string;
  /** Jobs to run, in order; empty when ignored. */
  jobs: ProviderJob[];
  /** Set when the event is deliberately not handled (unknown type, unpaid, wrong program...). */
  ignoredReason: string | null;
};

/**
 * Jobs of a stored inbox row. Rows outlive deploys: a row written before jobs carried an
 * `origin` (when `retryIfSaleMissing`/`bindCustomer` said "provider") reads as a provider job.
 */
export const inboxJobsSchema = z.array(
  z.preprocess(
    (job) => (job && typeof job === 'object' && !('origin' in job) ? { ...job, origin: 'provider' } : job),
    providerJobSchema,
  ),
);
