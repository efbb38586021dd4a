import { z } from 'zod';
import { COMMISSION_STATUSES, PAYOUT_RAILS, PAYOUT_STATUSES, SALE_PROVIDERS } from '../shared/vocabulary.ts';

/*
 * The outbound events as they are delivered (docs/outbound-events.md): one schema per type, the
 * body `{type, timestamp, data}` of the POST a merchant's endpoint receives, and their union on
 * `type`. The builders (event-data.ts) make `data` of these types, every event is parsed by
 * `outboundEventSchema` before it is written to the outbox (emit-events.ts), and the OpenAPI
 * document publishes them as its `webhooks`. Objects are strict: a field a builder adds that is not
 * here is refused, not dropped. This file imports only zod and the domain's closed value sets
 * (vocabulary.ts), so the contract stands on its own.
 */

const int = z.number().int();
const cents = (description: string) => int.meta({ description: `${description}, integer minor units of \`currency\`` });
const currency = z.string().length(3).meta({ description: 'ISO 4217 code, upper case' });
const time = z.iso.datetime();

/** What changed in a `commission.updated` event (`data.change`). */
export const COMMISSION_CHANGES = [
  'approved',
  'refunded',
  'reversed',
  'released',
  'rejected',
  'paid',
  /** Its payout failed: payable again (status `approved`). */
  'payout_failed',
] as const;

const leadCreatedData = z.strictObject({
  customer_id: int,
  customer_key: z.string().nullable().meta({ description: "The merchant's own user id, when the lead had one" }),
  partner_id: int.nullable(),
  click_id: z.string().nullable().meta({ description: 'The click the customer was bound to' }),
  created_at: time,
});

const saleCreatedData = z.strictObject({
  id: int,
  transaction_id: z.string(),
  amount_cents: cents('The sale amount'),
  currency,
  customer_id: int.nullable(),
  partner_id: int,
  click_id: z.string().nullable(),
  product_id: z.string().nullable(),
  provider: z.enum(SALE_PROVIDERS).nullable().meta({ description: 'The payment provider it came from' }),
  is_recurring: z.boolean(),
  occurred_at: time.nullable().meta({ description: 'When the payment happened, as the merchant or provider said' }),
  received_at: time,
});

const commissionFields = {
  id: int,
  sale_id: int.nullable().meta({ description: "The sale it is earned on (null: a reward per lead's)" }),
  lead_customer_id: int.nullable().meta({ description: 'The customer of a reward per lead (null: a sale’s)' }),
  partner_id: int,
  amount_cents: cents('The commission'),
  reversed_cents: cents('What refunds and reversals took back of it'),
  currency,
  status: z.enum(COMMISSION_STATUSES),
  held_for_review: z.boolean().meta({ description: 'Held by a fraud rule: never credited until released' }),
  payout_id: int.nullable(),
};

const commissionCreatedData = z.strictObject(commissionFields);

const commissionUpdatedData = z.strictObject({
  ...commissionFields,
  change: z.enum(COMMISSION_CHANGES).meta({ description: 'What happened to it' }),
  refund: z
    .strictObject({
      refund_id: z.string().nullable().meta({ description: 'The refund’s id as the merchant or provider gave it' }),
      amount_cents: cents('The amount of the sale refunded'),
      deduction_cents: cents('What it took off the commission'),
    })
    .optional()
    .meta({ description: 'The refund that changed it (a refund of its sale only)' }),
});

const payoutFields = {
  id: int,
  partner_id: int,
  amount_cents: cents('The payout'),
  currency,
  status: z.enum(PAYOUT_STATUSES),
  rail: z.enum(PAYOUT_RAILS).nullable().meta({ description: 'Where a payout run sent it' }),
  run_id: int.nullable().meta({ description: 'The payout run that created it' }),
  external_id: z.string().nullable().meta({ description: "The rail's id of the payment (a Stripe transfer)" }),
  created_at: time,
  paid_at: time.nullable(),
};
const commissionIds = z.array(int).meta({ description: 'The commissions it paid' });

const payoutCreatedData = z.strictObject(payoutFields);
const payoutPaidData = z.strictObject({ ...payoutFields, commission_ids: commissionIds });
const payoutFailedData = z.strictObject({
  ...payoutFields,
  failed_at: time.nullable(),
  failure_reason: z.string().nullable(),
  commission_ids: commissionIds.meta({ description: 'Its commissions, payable again' }),
});

const partnerCreatedData = z.strictObject({
  id: int,
  code: z.string().meta({ description: 'The `aff` value of its links' }),
  name: z.string(),
  email: z.string().nullable(),
  created_at: time,
});

/** The `data` of each event type. */
export const OUTBOUND_EVENT_DATA = {
  'lead.created': leadCreatedData,
  'sale.created': saleCreatedData,
  'commission.created': commissionCreatedData,
  'commission.updated': commissionUpdatedData,
  'payout.created': payoutCreatedData,
  'payout.paid': payoutPaidData,
  'payout.failed': payoutFailedData,
  'partner.created': partnerCreatedData,
} as const;

type EventTypeName = keyof typeof OUTBOUND_EVENT_DATA;

/** When each type is sent (docs/outbound-events.md). */
export const OUTBOUND_EVENT_DESCRIPTIONS: Record<EventTypeName, string> = {
  'lead.created':
    "A new customer bound to a partner's click (keyed or browser lead, or a provider checkout's implicit lead); a rebinding of a known customer is not a new lead.",
  'sale.created': 'An attributed live sale (test traffic and unattributed payments emit nothing).',
  'commission.created':
    'A sale’s commission, or a reward per lead (`lead_customer_id` set, `sale_id` null); one held by fraud rules has `held_for_review` true.',
  'commission.updated':
    'A commission as it now is, and `change`: `approved` (credited), `refunded` / `reversed` (a refund, with `refund`, or a lead reversal), `released` / `rejected` (a fraud hold decided), `paid` (with `payout_id`), `payout_failed` (payable again).',
  'payout.created':
    'A payout opened by the merchant, or created `processing` by a payout run (with `rail` and `run_id`).',
  'payout.paid':
    'A payout paid (a run’s payout confirmed, or its Stripe transfer accepted: `external_id`), with the commissions it paid.',
  'payout.failed':
    'A run’s payout marked failed, or whose Stripe transfer was reversed: its amount is back in the balance and its commissions payable again.',
  'partner.created': 'A partner added (admin API, CLI or dashboard).',
};

function envelope<T extends EventTypeName>(type: T) {
  return z
    .strictObject({
      type: z.literal(type),
      timestamp: time.meta({ description: 'When the event was written (the same on every attempt)' }),
      data: OUTBOUND_EVENT_DATA[type],
    })
    .meta({ title: type, description: OUTBOUND_EVENT_DESCRIPTIONS[type] });
}

/** The delivered body of each event type. */
export const OUTBOUND_EVENT_SCHEMAS = {
  'lead.created': envelope('lead.created'),
  'sale.created': envelope('sale.created'),
  'commission.created': envelope('commission.created'),
  'commission.updated': envelope('commission.updated'),
  'payout.created': envelope('payout.created'),
  'payout.paid': envelope('payout.paid'),
  'payout.failed': envelope('payout.failed'),
  'partner.created': envelope('partner.created'),
} as const;

/** Any delivered body, told apart by `type`. */
export const outboundEventSchema = z.discriminatedUnion('type', [
  OUTBOUND_EVENT_SCHEMAS['lead.created'],
  OUTBOUND_EVENT_SCHEMAS['sale.created'],
  OUTBOUND_EVENT_SCHEMAS['commission.created'],
  OUTBOUND_EVENT_SCHEMAS['commission.updated'],
  OUTBOUND_EVENT_SCHEMAS['payout.created'],
  OUTBOUND_EVENT_SCHEMAS['payout.paid'],
  OUTBOUND_EVENT_SCHEMAS['payout.failed'],
  OUTBOUND_EVENT_SCHEMAS['partner.created'],
]);

/** A delivered body. */
export type OutboundEventBody = z.output<typeof outboundEventSchema>;
/** The `data` a builder makes for one type. */
export type OutboundEventData<T extends EventTypeName> = z.input<(typeof OUTBOUND_EVENT_DATA)[T]>;

/** The headers of every attempt, besides `content-type: application/json` (sign-event.ts). */
export const OUTBOUND_EVENT_HEADERS = {
  'webhook-id': z
    .string()
    .regex(/^evt_[0-9a-f]{32}$/)
    .meta({
      description: "The event's id, the same on every attempt and for every endpoint of one event: deduplicate on it.",
    }),
  'webhook-timestamp': z
    .string()
    .regex(/^[0-9]+$/)
    .meta({ description: "This attempt's time, Unix seconds." }),
  'webhook-signature': z
    .string()
    .regex(/^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$/)
    .meta({
      description:
        'One `v1,<base64>` per active secret (two during a rotation), space-separated: the Standard Webhooks HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`.',
    }),
} as const;
