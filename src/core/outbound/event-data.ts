import type { ICommission } from '../entities/commission.ts';
import type { IPartner } from '../entities/partner.ts';
import type { IPayout } from '../entities/payout.ts';
import type { OutboundEventData } from './event-schemas.ts';
import type { CommissionChange, OutboundEventOf } from './event-types.ts';

/*
 * The `data` of each outbound event, in the wire names the rest of the API uses: snake_case,
 * amounts in integer minor units beside their currency, times as ISO 8601 UTC. Each is typed by
 * its event's schema (event-schemas.ts). docs/outbound-events.md shows one example of each.
 */

function iso(d: Date): string;
function iso(d: Date | null | undefined): string | null;
function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/** The commission fields every commission event carries. */
export type CommissionFacts = {
  id: number;
  saleId: number | null;
  leadCustomerId: number | null;
  partnerId: number;
  amountCents: number;
  reversedCents: number;
  currency: string;
  status: CommissionData['status'];
  heldForReview: boolean;
  payoutId?: number | null;
};

type CommissionData = OutboundEventData<'commission.created'>;

function commissionData(c: CommissionFacts): CommissionData {
  return {
    id: c.id,
    sale_id: c.saleId,
    lead_customer_id: c.leadCustomerId,
    partner_id: c.partnerId,
    amount_cents: c.amountCents,
    reversed_cents: c.reversedCents,
    currency: c.currency,
    status: c.status,
    held_for_review: c.heldForReview,
    payout_id: c.payoutId ?? null,
  };
}

/** A commission entity's facts. */
export function commissionFacts(c: ICommission): CommissionFacts {
  return {
    id: c.id,
    saleId: c.sale ?? null,
    leadCustomerId: c.leadCustomer ?? null,
    partnerId: c.partner,
    amountCents: c.amountCents,
    reversedCents: c.reversedCents,
    currency: c.currency,
    status: c.status,
    heldForReview: c.heldForReview,
    payoutId: c.payout ?? null,
  };
}

export function commissionCreated(c: CommissionFacts): OutboundEventOf<'commission.created'> {
  return { type: 'commission.created', data: commissionData(c) };
}

/** What a `commission.updated` event may carry besides the commission: its refund, the payout that paid it. */
export type CommissionUpdateExtra = Partial<Pick<OutboundEventData<'commission.updated'>, 'refund' | 'payout_id'>>;

/** `change` says what happened: approved (credited), refunded, reversed, released, rejected, paid. */
export function commissionUpdated(
  c: CommissionFacts,
  change: CommissionChange,
  extra: CommissionUpdateExtra = {},
): OutboundEventOf<'commission.updated'> {
  return { type: 'commission.updated', data: { ...commissionData(c), change, ...extra } };
}

export type SaleFacts = {
  id: number;
  transactionId: string;
  amountCents: number;
  currency: string;
  customerId: number | null;
  partnerId: number;
  clickId: string | null;
  productId: string | null;
  provider: OutboundEventData<'sale.created'>['provider'];
  isRecurring: boolean;
  occurredAt: Date | null;
  receivedAt: Date;
};

export function saleCreated(s: SaleFacts): OutboundEventOf<'sale.created'> {
  return {
    type: 'sale.created',
    data: {
      id: s.id,
      transaction_id: s.transactionId,
      amount_cents: s.amountCents,
      currency: s.currency,
      customer_id: s.customerId,
      partner_id: s.partnerId,
      click_id: s.clickId,
      product_id: s.productId,
      provider: s.provider,
      is_recurring: s.isRecurring,
      occurred_at: iso(s.occurredAt),
      received_at: iso(s.receivedAt),
    },
  };
}

export function leadCreated(l: {
  customerId: number;
  customerKey: string | null;
  partnerId: number | null;
  clickId: string | null;
  createdAt: Date;
}): OutboundEventOf<'lead.created'> {
  return {
    type: 'lead.created',
    data: {
      customer_id: l.customerId,
      customer_key: l.customerKey,
      partner_id: l.partnerId,
      click_id: l.clickId,
      created_at: iso(l.createdAt),
    },
  };
}

function payoutData(p: IPayout): OutboundEventData<'payout.created'> {
  return {
    id: p.id,
    partner_id: p.partner,
    amount_cents: p.amountCents,
    currency: p.currency,
    status: p.status,
    rail: p.rail ?? null,
    run_id: p.run ?? null,
    external_id: p.externalId ?? null,
    created_at: iso(p.createdAt),
    paid_at: iso(p.paidAt),
  };
}

export function payoutCreated(p: IPayout): OutboundEventOf<'payout.created'> {
  return { type: 'payout.created', data: payoutData(p) };
}

export function payoutPaid(p: IPayout, commissionIds: number[]): OutboundEventOf<'payout.paid'> {
  return { type: 'payout.paid', data: { ...payoutData(p), commission_ids: commissionIds } };
}

export function payoutFailed(p: IPayout, commissionIds: number[]): OutboundEventOf<'payout.failed'> {
  return {
    type: 'payout.failed',
    data: {
      ...payoutData(p),
      failed_at: iso(p.failedAt ?? null),
      failure_reason: p.failureReason ?? null,
      commission_ids: commissionIds,
    },
  };
}

export function partnerCreated(p: IPartner): OutboundEventOf<'partner.created'> {
  return {
    type: 'partner.created',
    data: { id: p.id, code: p.code, name: p.name, email: p.email ?? null, created_at: iso(p.createdAt) },
  };
}
