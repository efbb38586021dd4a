import { z } from 'zod';

/** Records (or overwrites, for last-partner attribution) a click. */
export const clickJobSchema = z.object({
  kind: z.literal('click'),
  partnerCode: z.string(),
  affiliateUrl: z.string(),
  pageUrl: z.string().nullable(),
  referrerUrl: z.string().nullable(),
  existingClickId: z.string().nullable(),
  visitorId: z.string().nullable(),
  receivedAt: z.string(),
});
export type ClickJob = z.infer<typeof clickJobSchema>;

type Required = 'partnerCode' | 'affiliateUrl' | 'receivedAt';
export type ClickJobInput = Pick<ClickJob, Required> & Partial<Omit<ClickJob, Required | 'kind'>>;

/** The one place a click job is written out. */
export function buildClickJob(input: ClickJobInput): ClickJob {
  return {
    kind: 'click',
    partnerCode: input.partnerCode,
    affiliateUrl: input.affiliateUrl,
    pageUrl: input.pageUrl ?? null,
    referrerUrl: input.referrerUrl ?? null,
    existingClickId: input.existingClickId ?? null,
    visitorId: input.visitorId ?? null,
    receivedAt: input.receivedAt,
  };
}
