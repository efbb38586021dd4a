import { z } from 'zod';
import { APPLICATION_STATUSES, DIGEST_FREQUENCIES } from '../../core/shared/vocabulary.ts';
import { keysetBefore as keysetBeforeField, rowId } from '../validate.ts';

// The admin API of applications and email settings (admin-applications.ts): request schemas and
// response shapes, also the dashboard's types (api-types.ts).

export const fieldSchema = z.strictObject({
  key: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'a key is lower-case letters, digits and _'),
  label: z.string().min(1).max(200),
  type: z.enum(['text', 'url', 'textarea']).default('text'),
  required: z.boolean().default(false),
});
export const applicationFormSchema = z.strictObject({
  enabled: z.boolean().optional(),
  intro: z.string().max(2000).nullable().optional(),
  fields: z.array(fieldSchema).max(20).optional(),
  terms_text: z.string().max(50_000).nullable().optional(),
  terms_version: z.string().min(1).max(64).nullable().optional(),
  auto_approve: z.boolean().optional(),
});
export const formBody = z.strictObject({
  enabled: z.boolean(),
  intro: z.string().nullable(),
  fields: z.array(fieldSchema),
  terms_text: z.string().nullable(),
  terms_version: z.string().nullable(),
  auto_approve: z.boolean(),
  page_url: z.string(),
});
export const listQuery = z.object({
  status: z.enum(APPLICATION_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: keysetBeforeField,
});
export const applicationWire = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  answers: z.record(z.string(), z.string()),
  terms_version: z.string().nullable(),
  terms_accepted_at: z.string().nullable(),
  status: z.enum(APPLICATION_STATUSES),
  reason: z.string().nullable(),
  partner_id: z.number().int().nullable(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
});
export const listBody = z.strictObject({ total: z.number().int(), applications: z.array(applicationWire) });
export const approveSchema = z.strictObject({ ids: z.array(rowId).min(1).max(200) });
export const rejectSchema = approveSchema.extend({ reason: z.string().max(2000).nullable().default(null) });
export const decisionWire = z.strictObject({
  application_id: z.number().int(),
  outcome: z.enum(['approved', 'rejected', 'skipped']),
  status: z.string().optional(),
  partner_id: z.number().int().optional(),
  partner_code: z.string().optional(),
  referral_link: z.string().optional(),
  invite_url: z.string().optional(),
});
export const decisionsBody = z.strictObject({ results: z.array(decisionWire) });
export const emailSettingsSchema = z.strictObject({
  sender_name: z.string().min(1).max(100).nullable().optional(),
  reply_to: z.email().max(254).nullable().optional(),
});
export const emailSettingsBody = z.strictObject({
  sender_name: z.string().nullable(),
  reply_to: z.string().nullable(),
  smtp_enabled: z.boolean(),
});

export type ApplicationFormBody = z.infer<typeof formBody>;
export type ApplicationListBody = z.infer<typeof listBody>;
export type DecisionsBody = z.infer<typeof decisionsBody>;
export type EmailSettingsBody = z.infer<typeof emailSettingsBody>;

// The partner's email choices (partner-email-prefs.ts).
export const emailPrefsSchema = z.strictObject({
  commission_digest: z.enum(DIGEST_FREQUENCIES).optional(),
  payout_emails: z.boolean().optional(),
  statement_emails: z.boolean().optional(),
  unsubscribed: z.boolean().optional(),
});
export const prefsBody = z.strictObject({
  commission_digest: z.enum(DIGEST_FREQUENCIES),
  payout_emails: z.boolean(),
  statement_emails: z.boolean(),
  unsubscribed: z.boolean(),
});
export type EmailPrefsBody = z.infer<typeof prefsBody>;
