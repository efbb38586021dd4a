import { z } from 'zod';
import { WEBHOOK_PROVIDERS } from '../shared/vocabulary.ts';

/**
 * Records that a provider names the sale `transactionId` also as `alias` (a Stripe PaymentIntent
 * paying an invoice), so provider refunds and disputes naming the alias find the sale. Only
 * providers emit it (origin `provider`).
 */
export const linkJobSchema = z.object({
  kind: z.literal('link'),
  origin: z.literal('provider'),
  programId: z.number().int().positive(),
  provider: z.enum(WEBHOOK_PROVIDERS),
  alias: z.string(),
  transactionId: z.string(),
  /** Links are id mappings, stored for test and live payments alike. */
  test: z.boolean(),
  receivedAt: z.string(),
});
export type LinkJob = z.infer<typeof linkJobSchema>;

/** The one place a link job is written out. */
export function buildLinkJob(input: Omit<LinkJob, 'kind' | 'origin'>): LinkJob {
  return {
    kind: 'link',
    origin: 'provider',
    programId: input.programId,
    provider: input.provider,
    alias: input.alias,
    transactionId: input.transactionId,
    test: input.test,
    receivedAt: input.receivedAt,
  };
}
