import type { CoreDeps } from '../deps.ts';
import { readBalances } from '../ledger/ledger.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { Program } from '../entities/program.ts';
import { Commission, type CommissionStatus } from '../entities/commission.ts';
import { Sale } from '../entities/sale.ts';
import { Notification, type NotificationKind } from '../entities/notification.ts';
import { exactAmount } from '../shared/money.ts';
import { Payout } from '../entities/payout.ts';
import { payoutRequestTerms } from '../payouts/request-payout.ts';
import { listActiveCodes } from '../attribution/partner-codes.ts';
import { PartnerGroup } from '../entities/partner-group.ts';
import { partnerResults, periodStart } from '../rewards/partner-groups.ts';
import type { RewardRules } from '../entities/program-rules.ts';

// Everything here is read through the signed-in partner's own id: the partner API never takes a
// program or partner id from the request, so a partner cannot name someone else's data.

/** Notification kinds a partner sees (the advertiser's manual-review warnings are not theirs). */
export const PARTNER_NOTIFICATION_KINDS: NotificationKind[] = ['partner_commission_refunded', 'partner_payout_failed'];

/**
 * A page of a list, newest first: `before` (keyset: rows with a smaller id, the last id of the
 * previous page) reads only the page whatever its depth; `offset` still works for small lists.
 */
export type Page = { limit: number; offset: number; before?: number };
/** `before` as a condition on the id (nothing when not given). */
export const beforeId = (page: { before?: number }) => (page.before ? { id: { $lt: page.before } } : {});

/**
 * The partner, their coupon codes in use, their group, their tier progress (when their rules have
 * tiers: the results so far in the current period and the steps), the terms they earn under (their
 * group's reward rules, else the program's, and the program's recurring policy) and the program
 * they refer for. @throws AppError `not_found`.
 */
export async function getPartnerProfile(deps: CoreDeps, partnerId: number) {
  const em = deps.em;
  const partner = await em.findOne(Partner, { id: partnerId });
  if (!partner) throw new AppError('not_found', 'No such partner');
  const program = await em.findOneOrFail(Program, { id: partner.program });
  return {
    partner: { id: partner.id, code: partner.code, name: partner.name, email: partner.email ?? null },
    program: {
      id: program.id,
      name: program.name,
      domain: program.domain ?? null,
      landingUrl: program.landingUrl ?? null,
      commissionRateBps: program.commissionRateBps,
      cookieDurationDays: program.cookieDurationDays,
    },
    couponCodes: await listActiveCodes(deps, program.id, partner.id),
    ...(await tierProgress(deps, partner, program.rewardRules ?? null)),
    recurring: { policy: program.recurringPolicy, months: program.recurringMonths ?? null },
  };
}

/** The partner's group and, when the rules they earn under have tiers, where they stand. */
async function tierProgress(
  deps: CoreDeps,
  partner: { id: number; program: number; group?: number | null },
  programRules: RewardRules | null,
) {
  const group = partner.group ? await deps.em.findOne(PartnerGroup, { id: partner.group }) : null;
  const rules = group?.rewardRules ?? programRules;
  const tiers = rules?.tiers;
  if (!tiers) return { group: group && { id: group.id, name: group.name }, rules, tier: null };
  const since = periodStart(tiers.period, deps.clock());
  const results = await partnerResults(deps.em, partner.program, partner.id, since);
  return {
    group: group && { id: group.id, name: group.name },
    rules,
    tier: { metric: tiers.metric, period: tiers.period, since, steps: tiers.steps.map((s) => s.from), ...results },
  };
}

/** The partner's commissions (on sales and, rewards per lead, on leads), newest first, with the sale amount and any refund reason. */
export async function listPartnerCommissions(
  deps: CoreDeps,
  partnerId: number,
  page: Page & { status?: CommissionStatus },
) {
  const em = deps.em;
  const where = { partner: partnerId, ...(page.status ? { status: page.status } : {}) };
  const [rows, total] = await Promise.all([
    em.find(
      Commission,
      { ...where, ...beforeId(page) },
      { limit: page.limit, offset: page.offset, orderBy: { id: 'desc' } },
    ),
    em.count(Commission, where),
  ]);
  const sales = new Map(
    (
      await em.find(
        Sale,
        { id: { $in: rows.flatMap((c) => (c.sale ? [c.sale] : [])) } },
        { fields: ['id', 'amountCents', 'refundedCents', 'transactionId'] },
      )
    ).map((s) => [s.id, s]),
  );
  return {
    total,
    commissions: rows.map((c) => ({
      id: c.id,
      status: c.status,
      currency: c.currency,
      amountCents: c.amountCents,
      reversedCents: c.reversedCents,
      netCents: c.amountCents - c.reversedCents,
      rateBps: c.rateBps,
      reason: c.reason ?? null,
      kind: c.sale ? ('sale' as const) : ('lead' as const),
      saleAmountCents: (c.sale && sales.get(c.sale)?.amountCents) ?? null,
      saleRefundedCents: (c.sale && sales.get(c.sale)?.refundedCents) ?? null,
      createdAt: c.createdAt,
      creditedAt: c.creditedAt ?? null,
      paidAt: c.paidAt ?? null,
      payoutId: c.payout ?? null,
    })),
  };
}

/**
 * Balance per currency (credited commissions less deductions and payouts), the payouts (a failed
 * one with its reason), and whether the partner may ask for a payout, from what minimum.
 */
export async function getPartnerEarnings(deps: CoreDeps, partnerId: number) {
  const em = deps.em;
  const [balances, payouts] = await Promise.all([
    readBalances(em, partnerId),
    em.find(Payout, { partner: partnerId }, { orderBy: { id: 'desc' }, limit: 200 }),
  ]);
  const terms = await payoutRequestTerms(deps, partnerId);
  return {
    payoutRequests: { allowed: terms.allowed, minimumCents: terms.settings.minimum_cents },
    balances: balances.map((b) => ({ currency: b.currency, balanceCents: exactAmount(b.balanceCents) })),
    payouts: payouts.map((w) => ({
      id: w.id,
      currency: w.currency,
      amountCents: w.amountCents,
      commissionsCents: w.commissionsCents,
      nettedCents: w.nettedCents,
      status: w.status,
      createdAt: w.createdAt,
      paidAt: w.paidAt ?? null,
      failureReason: w.failureReason ?? null,
    })),
  };
}

/** The partner's in-app notifications, newest first, with the unread count. */
export async function listPartnerNotifications(deps: CoreDeps, partnerId: number, page: Page) {
  const em = deps.em;
  const where = { partnerId, kind: { $in: PARTNER_NOTIFICATION_KINDS } };
  const [rows, total, unread] = await Promise.all([
    em.find(
      Notification,
      { ...where, ...beforeId(page) },
      { limit: page.limit, offset: page.offset, orderBy: { id: 'desc' } },
    ),
    em.count(Notification, where),
    em.count(Notification, { ...where, readAt: null }),
  ]);
  return {
    total,
    unreadCount: unread,
    notifications: rows.map((n) => ({
      id: n.id,
      kind: n.kind,
      commissionId: n.commissionId ?? null,
      payload: n.payload,
      createdAt: n.createdAt,
      readAt: n.readAt ?? null,
    })),
  };
}

/** Marks the given notifications (or all when `ids` is omitted) read; returns the unread count. */
export async function markPartnerNotificationsRead(
  deps: CoreDeps,
  partnerId: number,
  ids?: number[],
): Promise<{ unreadCount: number }> {
  const em = deps.em;
  const where = { partnerId, kind: { $in: PARTNER_NOTIFICATION_KINDS }, readAt: null };
  await em.nativeUpdate(Notification, ids ? { ...where, id: { $in: ids } } : where, { readAt: deps.clock() });
  return { unreadCount: await em.count(Notification, where) };
}
