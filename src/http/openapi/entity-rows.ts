import { z } from 'zod';
import { COMMISSION_STATUSES, PAYOUT_RAILS, PAYOUT_STATUSES } from '../../core/shared/vocabulary.ts';

/**
 * Stored rows as the admin API shows them (`rowToWire`, src/http/wire/records.ts): snake_case columns, related rows by id,
 * dates as ISO strings, secrets left out.
 */
const int = z.number().int();
const time = z.iso.datetime();

export const partnerRow = z.strictObject({
  id: int,
  program: int,
  code: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  group: int.nullable().meta({ description: "The partner's group (its reward rules); null: the program's rules" }),
  terms_version: z
    .string()
    .nullable()
    .meta({ description: 'The program terms version the partner accepted when applying; null: none recorded' }),
  terms_accepted_at: time.nullable(),
  created_at: time,
});

export const payoutRow = z.strictObject({
  id: int,
  program: int,
  partner: int,
  currency: z.string().length(3),
  status: z.enum(PAYOUT_STATUSES),
  requested_cents: int
    .nullable()
    .meta({ description: 'The most the payout was asked to pay; null: everything available' }),
  amount_cents: int.meta({ description: 'What it pays: `commissions_cents` less `netted_cents`' }),
  commissions_cents: int,
  netted_cents: int.meta({ description: 'What the partner owed back, netted' }),
  created_at: time,
  paid_at: time.nullable(),
  run: int.nullable().meta({ description: 'The payout run that created it' }),
  rail: z.enum(PAYOUT_RAILS).nullable(),
  external_id: z.string().nullable().meta({ description: "The rail's id of the payment (a Stripe transfer)" }),
  failed_at: time.nullable(),
  failure_reason: z.string().nullable(),
});

export const payoutRunRow = z.strictObject({
  id: int,
  program: int,
  rail: z.enum(PAYOUT_RAILS),
  currency: z.string().length(3),
  credited_before: time.meta({ description: 'Only commissions credited before this instant were paid' }),
  scheduled_for: z.string().nullable().meta({ description: 'The day a scheduled run was due (YYYY-MM-DD)' }),
  payout_count: int,
  total_cents: int,
  created_at: time,
});

export const commissionRow = z.strictObject({
  id: int,
  program: int,
  sale: int.nullable().meta({ description: 'The sale it is on; null for a reward per lead (`lead_customer`)' }),
  lead_customer: int
    .nullable()
    .meta({ description: 'The customer whose lead earned it (reward per lead); null on a sale' }),
  partner: int,
  amount_cents: int,
  reversed_cents: int,
  currency: z.string().length(3),
  rate_bps: int.meta({ description: 'The percentage applied; 0 for a flat reward' }),
  reward: z
    .looseObject({
      rule: z.enum(['first_sale', 'product', 'tier', 'sale', 'base', 'lead']),
      type: z.enum(['percent', 'flat']),
    })
    .nullable()
    .meta({
      description:
        'Which reward rule gave the amount, with its inputs; null on commissions recorded before reward rules',
    }),
  status: z.enum(COMMISSION_STATUSES),
  reason: z.string().nullable(),
  credited_at: time.nullable(),
  paid_at: time.nullable(),
  held_for_review: z.boolean(),
  hold: z
    .looseObject({ rules: z.array(z.looseObject({ rule: z.string() })), held_at: time })
    .nullable()
    .meta({ description: 'The fraud rules that held it, their evidence, and `released_at` or `rejected_at`' }),
  payout: int.nullable(),
  created_at: time,
  updated_at: time,
});

export const balanceEntryRow = z.strictObject({
  id: int,
  partner: int,
  currency: z.string().length(3),
  delta_cents: int,
  kind: z.enum(['commission_credit', 'refund_deduction', 'payout', 'payout_failed']),
  commission_id: int.nullable(),
  refund_id: int.nullable(),
  payout_id: int.nullable(),
  created_at: time,
});

export const webhookEventRow = z.strictObject({
  id: int,
  provider: z.string(),
  program: int,
  dedupe_key: z.string(),
  event_type: z.string(),
  payload: z.unknown().meta({
    description: 'The verified event as parsed from the raw bytes (buyer data removed after the retention period)',
  }),
  normalised: z.unknown().meta({ description: 'What the service read from it (sales, refunds)' }),
  status: z.enum(['pending', 'processed', 'ignored', 'failed']),
  outcome: z.unknown(),
  error: z.string().nullable(),
  attempts: int,
  received_at: time,
  requeued_at: time
    .nullable()
    .meta({ description: 'When a replay or the inbox sweeper last handed the event to the queue again' }),
  processed_at: time.nullable(),
  payload_redacted_at: time.nullable(),
});
