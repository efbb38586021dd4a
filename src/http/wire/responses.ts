import { z } from 'zod';
import { COMMISSION_STATUSES, PAYOUT_STATUSES, WEBHOOK_PROVIDERS } from '../../core/shared/vocabulary.ts';
import type { IApiKey } from '../../core/entities/api-key.ts';
import type { ICommission } from '../../core/entities/commission.ts';
import type { IPartner } from '../../core/entities/partner.ts';
import type { IPartnerCode } from '../../core/entities/partner-code.ts';
import type { IPartnerGroup } from '../../core/entities/partner-group.ts';
import type { IWebhookEvent } from '../../core/entities/webhook-event.ts';
import { balanceEntryRow, commissionRow, partnerRow, payoutRow } from '../openapi/entity-rows.ts';
import type { RowWire } from './records.ts';
import { apiKeyFields } from './provider-connections.ts';
import { partnerTermsWire } from './partner-terms.ts';

/*
 * Response bodies of the admin, session and partner APIs: the zod schema the route's OpenAPI
 * entry documents (the contract test checks every response against it) and its type, which the
 * handler or wire function that writes the body is checked against. Bodies the document only
 * describes loosely (`row`) are typed from the entity (`RowWire`, records.ts); programs:
 * program-config.ts.
 *
 * Zod, the vocabulary, entity definitions and type-only imports only, nothing that needs Node:
 * the dashboard's API client takes its response types from here (dashboard/src/api-types.ts).
 */

const int = z.number().int();
const time = z.iso.datetime();

// Sessions (routes/sessions.ts)

/** A session opened or described: the CSRF token to send with every write. */
export const sessionBody = z.strictObject({
  csrf_token: z
    .string()
    .meta({ description: 'Send it as the `x-csrf-token` header on every write made with the session cookie' }),
  expires_at: z.iso.datetime(),
});
export type SessionBody = z.infer<typeof sessionBody>;
export const signedOutBody = z.strictObject({ signed_out: z.literal(true) });
export type SignedOutBody = z.infer<typeof signedOutBody>;

/** `GET /api/v1/partner/invites/:token`: whom an invite link is for. */
export const inviteDescriptionBody = z.strictObject({
  partner_name: z.string(),
  partner_code: z.string(),
  expires_at: z.iso.datetime(),
});
export type InviteDescriptionBody = z.infer<typeof inviteDescriptionBody>;

// Activity series (wire/activity-series.ts; admin and partner `stats` routes)

/** Per day, oldest first: `days[i]` is the UTC date of every measure's `[i]`; money per currency. */
export const seriesWire = z.strictObject({
  days: z.array(z.iso.date()),
  clicks: z.array(z.number().int()),
  leads: z.array(z.number().int()),
  sales: z.array(z.number().int()),
  revenue_cents: z
    .record(z.string(), z.array(z.number().int()))
    .meta({ description: 'Sale amounts per currency, one entry per day (gross: refunds not taken off)' }),
  refunded_cents: z
    .record(z.string(), z.array(z.number().int()))
    .meta({ description: 'What has been refunded of the sales of each day, per currency (net = revenue − refunded)' }),
  commission_cents: z
    .record(z.string(), z.array(z.number().int()))
    .meta({ description: 'Commission amounts per currency, one entry per day' }),
});
export type SeriesBody = z.infer<typeof seriesWire>;

// The partner API (routes/partner.ts, wire/partner-portal.ts)
const LANDING = "Where the partner's links land: the landing URL, else `https://<domain>/`; null: neither (extension)";
const REFERRAL = 'The landing URL with `aff=<code>`; without one, the demo page while it is on, else empty';
export const partnerProfileBody = z.strictObject({
  partner: z.strictObject({ id: int, code: z.string(), name: z.string(), email: z.string().nullable() }),
  program: z.strictObject({
    id: int,
    name: z.string(),
    domain: z.string().nullable(),
    landing_url: z.string().nullable().optional().meta({ description: LANDING }),
    commission_rate_bps: int,
    cookie_duration_days: int,
  }),
  coupon_codes: z.array(z.string()).meta({
    description: "The partner's coupon codes in use: sales made with one are the partner's (extension)",
  }),
  group: z.strictObject({ id: int, name: z.string() }).nullable(),
  tier: z
    .strictObject({
      metric: z.enum(['sales', 'revenue']),
      period: z.enum(['calendar_month', 'last_30_days']),
      since: time,
      steps: z.array(int).meta({ description: 'Where each tier starts (`from`), ascending' }),
      sales: int.meta({ description: "The partner's sales in the period so far" }),
      revenue: z.array(z.strictObject({ currency: z.string().length(3), cents: int })),
    })
    .nullable()
    .meta({ description: 'Where the partner stands on the tiers of their reward rules; null without tiers' }),
  terms: partnerTermsWire,
  referral_link: z.string().meta({ description: REFERRAL }),
});
export type PartnerProfileBody = z.infer<typeof partnerProfileBody>;

export const partnerCommissionsBody = z.strictObject({
  total: int,
  commissions: z.array(
    z.strictObject({
      id: int,
      status: z.enum(COMMISSION_STATUSES),
      currency: z.string().length(3),
      amount_cents: int,
      reversed_cents: int,
      net_cents: int.meta({ description: '`amount_cents - reversed_cents`' }),
      rate_bps: int,
      reason: z.string().nullable(),
      kind: z.enum(['sale', 'lead']).meta({ description: '`lead`: a reward per lead (no sale)' }),
      sale_amount_cents: int.nullable(),
      sale_refunded_cents: int.nullable(),
      created_at: time,
      credited_at: time.nullable(),
      paid_at: time.nullable(),
      payout_id: int.nullable(),
    }),
  ),
});
export type PartnerCommissionsBody = z.infer<typeof partnerCommissionsBody>;

export const partnerEarningsBody = z.strictObject({
  balances: z.array(z.strictObject({ currency: z.string().length(3), balance_cents: int })),
  payouts: z.array(
    z.strictObject({
      id: int,
      currency: z.string().length(3),
      amount_cents: int,
      commissions_cents: int,
      netted_cents: int,
      status: z.enum(PAYOUT_STATUSES),
      created_at: time,
      paid_at: time.nullable(),
      failure_reason: z.string().nullable().meta({ description: 'A failed payout: why (the amount is back)' }),
    }),
  ),
  payout_requests: z
    .strictObject({ allowed: z.boolean(), minimum_cents: z.record(z.string(), int) })
    .meta({ description: 'Whether the partner may ask for a payout (`POST /payout-requests`), from what minimum' }),
});
export type PartnerEarningsBody = z.infer<typeof partnerEarningsBody>;

export const partnerNotificationsBody = z.strictObject({
  total: int,
  unread_count: int,
  notifications: z.array(
    z.strictObject({
      id: int,
      kind: z.string(),
      commission_id: int.nullable(),
      payload: z.unknown(),
      created_at: time,
      read_at: time.nullable(),
    }),
  ),
});
export type PartnerNotificationsBody = z.infer<typeof partnerNotificationsBody>;

export const unreadCountBody = z.strictObject({ unread_count: int });
export type UnreadCountBody = z.infer<typeof unreadCountBody>;

// API keys (routes/admin-api-keys.ts, wire/api-keys.ts)

const issuedKey = {
  id: z.number().int(),
  key: z.string().meta({ description: 'Shown once' }),
  prefix: z.string(),
  mode: z.enum(['live', 'test']),
};
/** A key just issued: shown this once. */
export const issuedKeyBody = z.strictObject({ ...issuedKey, note: z.string() });
export type IssuedKeyBody = z.infer<typeof issuedKeyBody>;
/** The replacement key (shown once) and the deadline of the one it replaces. */
export const rotatedKeyBody = z.strictObject({
  ...issuedKey,
  retired_key_id: z.number().int(),
  rotate_by: z.iso.datetime().nullable(),
});
export type RotatedKeyBody = z.infer<typeof rotatedKeyBody>;
export type RetiredKeyBody = { key: RowWire<IApiKey> };

// Partners, commissions, payouts (routes/admin-partners.ts, admin-commissions.ts, admin-payouts.ts)

export type PartnerCreatedBody = { partner: RowWire<IPartner> };
/** A partner group, created or changed; a partner moved to a group (routes/admin-partners.ts). */
export type PartnerGroupBody = { group: RowWire<IPartnerGroup> };
/** A partner's coupon code, created or retired (routes/admin-partners.ts). */
export type PartnerCodeBody = { code: RowWire<IPartnerCode> };
export type CommissionApprovedBody = { commission: RowWire<ICommission> };
/** POST .../commissions/:cid/reverse (a reward per lead). */
export type LeadReversalBody =
  | {
      status: 'refunded' | 'reversed';
      deduction_cents: number;
      balance_deduction_cents: number;
      commission: RowWire<ICommission>;
    }
  | { status: 'skipped'; reason: string; commission: RowWire<ICommission> };

/** `POST /programs/:id/partners/:partnerId/invites`: the one-time link (shown once). */
export const partnerInviteBody = z.strictObject({
  invite_url: z.url(),
  expires_at: z.iso.datetime(),
  partner_id: z.number().int(),
});
export type PartnerInviteBody = z.infer<typeof partnerInviteBody>;

export const payoutBody = z.strictObject({ payout: payoutRow });
export type PayoutBody = z.infer<typeof payoutBody>;

/** A payout with the commissions it pays. */
export const paidPayoutBody = z.strictObject({
  payout: payoutRow,
  commissions: z.array(commissionRow).meta({ description: 'The commissions the payout pays' }),
});
export type PaidPayoutBody = z.infer<typeof paidPayoutBody>;

/** A partner's statement: per currency, the balance alone (the earlier account view), ledger, payouts. */
export const statementBody = z.strictObject({
  partner: partnerRow,
  currencies: z.array(
    z.strictObject({
      currency: z.string().length(3),
      credits_cents: int,
      reversals_cents: int,
      payouts_cents: int,
      balance_cents: int.meta({ description: '`credits_cents - reversals_cents - payouts_cents`' }),
      unpaid_commissions_cents: int.meta({ description: 'What remains of credited commissions not paid yet' }),
      owed_cents: int.meta({
        description: 'What the partner owes back from refunds of commissions already paid (netted by the next payout)',
      }),
      open_payouts_cents: int,
      reconciles: z.boolean().meta({ description: 'The ledger sums to the stored balance' }),
    }),
  ),
  balances: z
    .array(z.strictObject({ currency: z.string().length(3), balance_cents: int }))
    .meta({ description: 'The balance per currency alone' }),
  ledger: z.array(balanceEntryRow).meta({ description: 'The latest 200 balance entries, newest first' }),
  payouts: z.array(payoutRow).meta({ description: 'The latest 200 payouts, newest first' }),
});
export type StatementBody = z.infer<typeof statementBody>;

// The webhook inbox (routes/admin-dashboard.ts, admin-webhook-events.ts)

/** One inbox row with its payload (the document: `webhookEventRow`). */
export type WebhookEventBody = { webhook_event: RowWire<IWebhookEvent> };

export const replayBody = z.strictObject({ replayed: z.array(z.number().int()) });
export type ReplayBody = z.infer<typeof replayBody>;

// Provider connections and signing secrets (routes/admin-provider-secrets.ts, wire/provider-secrets.ts)

export const providerSecretLabel = z.enum(['live', 'test']);
const provider = z.enum(WEBHOOK_PROVIDERS);

export const providerConnectedBody = z.strictObject({
  connected: z.literal(true),
  provider,
  program_id: z.number().int(),
  webhook_url: z.string(),
  ...apiKeyFields,
});
export type ProviderConnectedBody = z.infer<typeof providerConnectedBody>;

/** Never the secret: id, label, times and a short fingerprint. */
export const providerSecretWire = z.strictObject({
  id: z.number().int(),
  label: providerSecretLabel,
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  fingerprint: z.string().meta({ description: 'A short fingerprint of the secret (never the secret)' }),
});
export type ProviderSecretWire = z.infer<typeof providerSecretWire>;
export const providerSecretBody = z.strictObject({ secret: providerSecretWire });
export type ProviderSecretBody = z.infer<typeof providerSecretBody>;
export const providerSecretsBody = z.strictObject({ secrets: z.array(providerSecretWire) });
export type ProviderSecretsBody = z.infer<typeof providerSecretsBody>;
export const removedBody = z.strictObject({ removed: z.literal(true) });
export type RemovedBody = z.infer<typeof removedBody>;

/** `POST /programs/:id/rules/preview` (routes/admin-rules-preview.ts). */
const previewLine = {
  currency: z.string().length(3),
  sales: int,
  current_cents: int.meta({ description: 'What the recorded commissions of these sales pay' }),
  proposed_cents: int.meta({ description: 'What the proposed rules would pay' }),
};
export const rulesPreviewBody = z.strictObject({
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  sales: int.meta({ description: 'Attributed live sales in the window' }),
  totals: z.array(z.strictObject(previewLine)),
  partners: z.array(z.strictObject({ partner_id: int, ...previewLine })),
});
export type RulesPreviewBody = z.infer<typeof rulesPreviewBody>;
