import type { H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { CURRENCIES } from '../../core/vocabulary.ts';
import { toWire } from '../../core/list-records.ts';
import { cancelPayout, openPayout } from '../../core/open-payout.ts';
import { payCommission, payPayout, type PaidPayout } from '../../core/pay-payout.ts';
import { getPayout } from '../../core/get-payout.ts';
import { getPartnerStatement, type PartnerStatement } from '../../core/get-partner-statement.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';

export type AdminOn = (method: 'get' | 'post' | 'patch' | 'put', path: string, fn: (e: H3Event) => Promise<object | Response>) => void;
export type AdminHelpers = { on: AdminOn; num: (e: H3Event, name: string) => number; body: (e: H3Event) => Promise<unknown> };

const openPayoutSchema = z.strictObject({
  currency: z.enum(CURRENCIES),
  /** The most it may pay; omitted: everything available now. */
  amount_cents: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
});

/**
 * Payouts: a payout pays whole credited commissions (oldest first, netting what the partner owes
 * back) and lowers the balance by exactly what it pays. A withdrawal is an open payout.
 *   POST /programs/:id/partners/:partnerId/payouts   {currency, amount_cents?} → 201 {payout} (open)
 *   POST /programs/:id/payouts/:payoutId/pay                                  → {payout, commissions}
 *   POST /programs/:id/payouts/:payoutId/cancel                               → {payout}
 *   GET  /programs/:id/payouts/:payoutId                                      → {payout, commissions}
 *   POST /programs/:id/commissions/:cid/pay    a payout of this one commission → {payout, commissions}
 *   GET  /programs/:id/partners/:partnerId/statement (alias: /account)         → statement
 * Lists: GET /programs/:id/payouts?status=&partner_id= (the generic list route).
 */
export function registerPayoutAdminRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/partners/:partnerId/payouts', async (e) => {
    const b = validate(openPayoutSchema, await body(e));
    return json({ payout: toWire(await openPayout(ctx.deps(), num(e, 'id'), num(e, 'partnerId'), b.currency, b.amount_cents ?? null)) }, 201);
  });
  on('post', '/programs/:id/payouts/:payoutId/pay', async (e) => paidToWire(await payPayout(ctx.deps(), num(e, 'id'), num(e, 'payoutId'))));
  on('post', '/programs/:id/payouts/:payoutId/cancel', async (e) => ({ payout: toWire(await cancelPayout(ctx.deps(), num(e, 'id'), num(e, 'payoutId'))) }));
  on('get', '/programs/:id/payouts/:payoutId', async (e) => paidToWire(await getPayout(ctx.deps(), num(e, 'id'), num(e, 'payoutId'))));
  on('post', '/programs/:id/commissions/:cid/pay', async (e) => paidToWire(await payCommission(ctx.deps(), num(e, 'id'), num(e, 'cid'))));
  const statement = async (e: H3Event) => statementToWire(await getPartnerStatement(ctx.deps(), num(e, 'id'), num(e, 'partnerId')));
  on('get', '/programs/:id/partners/:partnerId/statement', statement);
  on('get', '/programs/:id/partners/:partnerId/account', statement);
}

function paidToWire(p: PaidPayout) {
  return { payout: toWire(p.payout), commissions: p.commissions.map(toWire) };
}

function statementToWire(s: PartnerStatement) {
  return {
    partner: s.partner,
    currencies: s.currencies.map((c) => ({
      currency: c.currency, credits_cents: c.creditsCents, reversals_cents: c.reversalsCents, payouts_cents: c.payoutsCents,
      balance_cents: c.balanceCents, unpaid_commissions_cents: c.unpaidCommissionsCents, owed_cents: c.owedCents,
      open_payouts_cents: c.openPayoutsCents, reconciles: c.reconciles,
    })),
    // Kept from the earlier account view: the balance per currency alone.
    balances: s.currencies.map((c) => ({ currency: c.currency, balance_cents: c.balanceCents })),
    ledger: s.ledger,
    payouts: s.payouts,
  };
}
