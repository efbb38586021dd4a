import { linkBase } from '../../core/shared/partner-links.ts';
import type {
  getPartnerEarnings,
  getPartnerProfile,
  listPartnerCommissions,
  listPartnerNotifications,
} from '../../core/programs/partner-portal.ts';
import type {
  PartnerCommissionsBody,
  PartnerEarningsBody,
  PartnerNotificationsBody,
  PartnerProfileBody,
  UnreadCountBody,
} from './responses.ts';

type Result<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;
const iso = (d: Date | null) => d?.toISOString() ?? null;

/** `GET /partner/me` without the referral link. */
export function partnerProfileToWire({
  partner,
  program,
  couponCodes,
  group,
  tier,
  rules,
  recurring,
}: Result<typeof getPartnerProfile>): Omit<PartnerProfileBody, 'referral_link'> {
  return {
    partner: { id: partner.id, code: partner.code, name: partner.name, email: partner.email },
    program: {
      id: program.id,
      name: program.name,
      domain: program.domain,
      landing_url: linkBase(program),
      commission_rate_bps: program.commissionRateBps,
      cookie_duration_days: program.cookieDurationDays,
    },
    coupon_codes: couponCodes,
    group,
    tier: tier && { ...tier, since: tier.since.toISOString() },
    terms: { reward_rules: rules, recurring_policy: recurring.policy, recurring_months: recurring.months },
  };
}

export function partnerCommissionsToWire(r: Result<typeof listPartnerCommissions>): PartnerCommissionsBody {
  return {
    total: r.total,
    commissions: r.commissions.map((c) => ({
      id: c.id,
      status: c.status,
      currency: c.currency,
      amount_cents: c.amountCents,
      reversed_cents: c.reversedCents,
      net_cents: c.netCents,
      rate_bps: c.rateBps,
      reason: c.reason,
      kind: c.kind,
      sale_amount_cents: c.saleAmountCents,
      sale_refunded_cents: c.saleRefundedCents,
      created_at: c.createdAt.toISOString(),
      credited_at: iso(c.creditedAt),
      paid_at: iso(c.paidAt),
      payout_id: c.payoutId,
    })),
  };
}

export function partnerEarningsToWire(r: Result<typeof getPartnerEarnings>): PartnerEarningsBody {
  return {
    balances: r.balances.map((b) => ({ currency: b.currency, balance_cents: b.balanceCents })),
    payouts: r.payouts.map((w) => ({
      id: w.id,
      currency: w.currency,
      amount_cents: w.amountCents,
      commissions_cents: w.commissionsCents,
      netted_cents: w.nettedCents,
      status: w.status,
      created_at: w.createdAt.toISOString(),
      paid_at: iso(w.paidAt),
      failure_reason: w.failureReason,
    })),
    payout_requests: {
      allowed: r.payoutRequests.allowed,
      minimum_cents: Object.fromEntries(
        Object.entries(r.payoutRequests.minimumCents).filter((e): e is [string, number] => e[1] !== undefined),
      ),
    },
  };
}

export function partnerNotificationsToWire(r: Result<typeof listPartnerNotifications>): PartnerNotificationsBody {
  return {
    total: r.total,
    unread_count: r.unreadCount,
    notifications: r.notifications.map((n) => ({
      id: n.id,
      kind: n.kind,
      commission_id: n.commissionId,
      payload: n.payload,
      created_at: n.createdAt.toISOString(),
      read_at: iso(n.readAt),
    })),
  };
}

export const unreadCountToWire = (r: { unreadCount: number }): UnreadCountBody => ({ unread_count: r.unreadCount });
