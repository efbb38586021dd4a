import { z } from 'zod';
import { EMAIL_HASH_VERSION } from '../shared/email-hash.ts';

/** Binds a merchant customer id to a click (lead tracking). */
export const leadJobSchema = z.object({
  kind: z.literal('lead'),
  programId: z.number().int().positive(),
  customerKey: z.string().nullable(),
  clickId: z.string().nullable(),
  /** Keyed hash (hex) of the normalised email (email-hash.ts); the email itself is never stored. */
  emailHash: z.string().nullable(),
  /** EMAIL_HASH_VERSION (3 = of the normalised address); absent in jobs queued before the keyed hash (1). */
  emailHashVersion: z.number().int().optional(),
  /** The email is at a disposable-address domain (fraud-rules.ts); null: no email. */
  emailDisposable: z.boolean().nullable().default(null),
  eventName: z.string().nullable(),
  additionalData: z.record(z.string(), z.unknown()).nullable(),
  /** Browser mode (keyless signup helper): never rebinds an existing customer. */
  browser: z.boolean(),
  receivedAt: z.string(),
});
export type LeadJob = z.infer<typeof leadJobSchema>;

type Required = 'programId' | 'customerKey' | 'clickId' | 'receivedAt';
export type LeadJobInput = Pick<LeadJob, Required> & Partial<Omit<LeadJob, Required | 'kind'>>;

/** The one place a lead job is written out (API lead, implicit lead of a provider checkout). */
export function buildLeadJob(input: LeadJobInput): LeadJob {
  return {
    kind: 'lead',
    programId: input.programId,
    customerKey: input.customerKey,
    clickId: input.clickId,
    emailHash: input.emailHash ?? null,
    ...(input.emailHash ? { emailHashVersion: input.emailHashVersion ?? EMAIL_HASH_VERSION.hmacSha256Normalised } : {}),
    emailDisposable: input.emailDisposable ?? null,
    eventName: input.eventName ?? null,
    additionalData: input.additionalData ?? null,
    browser: input.browser ?? false,
    receivedAt: input.receivedAt,
  };
}
