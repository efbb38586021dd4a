/**
 * The request bodies of the admin, session and partner routes (those of programs and partners:
 * program-config.ts and partners.ts). Each route validates with its schema and documents it; the
 * dashboard types what it sends with their `z.input` (dashboard/src/api-types.ts), so this file
 * imports nothing of Node.
 */
import { z } from 'zod';
import { PAYOUT_RAILS } from '../../core/shared/vocabulary.ts';
import { currencyCodeSchema } from '../../core/shared/currency-code.ts';
import { rewardRulesSchema } from '../../core/entities/program-rules.ts';
import { rowId } from '../validate.ts';
import { eventTypesWire } from './event-endpoints.ts';
import { providerSecretLabel } from './responses.ts';

const isoTime = z.iso.datetime({ offset: true });

export const operatorSignInSchema = z.union([
  z.strictObject({ token: z.string().min(1).max(512) }),
  z.strictObject({
    email: z.string().trim().min(1).max(254),
    password: z.string().min(1).max(200),
    totp_code: z
      .string()
      .regex(/^\d{6}$/, 'six digits')
      .optional(),
  }),
]);
export const partnerSignInSchema = z.strictObject({
  login: z.string().trim().min(1).max(255),
  password: z.string().min(1).max(200),
});
export const acceptInviteSchema = z.strictObject({ password: z.string().max(200) });

export const keyIssueSchema = z.strictObject({ mode: z.enum(['live', 'test']).default('live') });
export const keyRetireSchema = z.strictObject({ rotate_by: isoTime.nullable().optional() });
export const keyRotateSchema = z.strictObject({ grace_days: z.number().int().min(0).max(365).default(7) });

/** Write-only: a string sets the key, `null` clears it. */
export const apiKeyValue = z
  .string()
  .trim()
  .min(8)
  .max(500)
  .nullable()
  .meta({ description: "The provider's API key (Lemon Squeezy or Stripe; write-only, stored sealed); null clears it" });
const secretValue = z.string().min(8).max(500);
export const connectSchema = z.strictObject({
  signing_secret: secretValue,
  label: providerSecretLabel.default('live'),
  api_key: apiKeyValue.optional(),
});
export const addSecretSchema = z.strictObject({
  secret: secretValue,
  label: providerSecretLabel,
  expires_at: isoTime.nullable().default(null),
});
export const expireSecretSchema = z.strictObject({ at: isoTime.nullable().default(null) });

export const rulesPreviewSchema = z.strictObject({
  /** The proposed program rules; omitted: the program's current rules. */
  reward_rules: rewardRulesSchema.nullable().optional(),
  /** Proposed rules of partner groups, by group id; a group not named keeps its own. */
  group_rules: z.record(z.string().regex(/^[1-9]\d{0,9}$/, 'a group id'), rewardRulesSchema.nullable()).optional(),
  /** Sales received from (inclusive); default: 30 days before `to`. */
  from: isoTime.optional(),
  /** Sales received before; default: now (included). */
  to: isoTime.optional(),
});

export const leadReversalSchema = z.strictObject({
  amount_cents: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .nullish()
    .meta({ description: 'Minor units to take back; omitted or 0: all that remains' }),
  reason: z.string().max(1000).nullish().meta({ description: 'Recorded as the commission reason' }),
});

export const openPayoutSchema = z.strictObject({
  currency: currencyCodeSchema,
  /** The most it may pay; omitted: everything available now. */
  amount_cents: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
});
export const payoutRunSchema = z.strictObject({
  currency: currencyCodeSchema,
  /** Default: the program's `payout_settings.rail` (`manual` when none). */
  rail: z.enum(PAYOUT_RAILS).optional(),
});
/** A partner's payout request: everything available (at least the minimum) when no amount is given. */
export const payoutRequestSchema = openPayoutSchema;
/** Many commissions decided at once; each gets its own result. */
export const reviewCommissionsSchema = z.strictObject({
  action: z
    .enum(['approve', 'reject'])
    .meta({ description: '`approve` releases a held commission; `reject` is final' }),
  commission_ids: z.array(rowId).min(1).max(200),
});
export const payoutFailSchema = z.strictObject({ reason: z.string().trim().min(1).max(255) });

export const replaySchema = z.strictObject({ id: rowId.optional() });

const endpointUrl = z.string().min(1).max(2000);
export const endpointCreateSchema = z.strictObject({
  url: endpointUrl,
  event_types: eventTypesWire.default(null),
  enabled: z.boolean().default(true),
});
export const endpointPatchSchema = z.strictObject({
  url: endpointUrl.optional(),
  event_types: eventTypesWire.optional(),
  enabled: z.boolean().optional(),
});

export const markReadSchema = z.strictObject({ ids: z.array(rowId).max(500).optional() });
