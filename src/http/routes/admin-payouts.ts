import type { H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { cancelPayout, openPayout } from '../../core/payouts/open-payout.ts';
import { payCommission, payPayout } from '../../core/payouts/pay-payout.ts';
import { getPayout } from '../../core/payouts/get-payout.ts';
import { getPartnerStatement } from '../../core/ledger/get-partner-statement.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { paidPayoutToWire, statementToWire } from '../wire/payouts.ts';
import { rowToWire } from '../wire/records.ts';
import { paidPayoutBody, payoutBody, statementBody, type PayoutBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { openPayoutSchema } from '../wire/requests.ts';
import { partnerKey, programKey } from '../../read-routing.ts';

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
export function registerPayoutAdminRoutes(ctx: RouteContext, { on, num, body, emitting }: AdminHelpers): void {
  on('post', '/programs/:id/partners/:partnerId/payouts', async (e) => {
    const b = validate(openPayoutSchema, await body(e));
    return json(
      {
        payout: rowToWire(
          (await emitting((d) => openPayout(d, num(e, 'id'), num(e, 'partnerId'), b.currency, b.amount_cents ?? null)))
            .payout,
        ),
      } satisfies PayoutBody,
      201,
    );
  });
  on('post', '/programs/:id/payouts/:payoutId/pay', async (e) =>
    paidPayoutToWire(await emitting((d) => payPayout(d, num(e, 'id'), num(e, 'payoutId')))),
  );
  on(
    'post',
    '/programs/:id/payouts/:payoutId/cancel',
    async (e) =>
      ({
        payout: rowToWire(await cancelPayout(ctx.deps(), num(e, 'id'), num(e, 'payoutId'))),
      }) satisfies PayoutBody,
  );
  on('get', '/programs/:id/payouts/:payoutId', async (e) =>
    paidPayoutToWire(await getPayout(ctx.deps(), num(e, 'id'), num(e, 'payoutId'))),
  );
  on('post', '/programs/:id/commissions/:cid/pay', async (e) =>
    paidPayoutToWire(await emitting((d) => payCommission(d, num(e, 'id'), num(e, 'cid')))),
  );
  // Statements of a program run one at a time, the others waiting their turn within
  // REPORT_TIMEOUT_MS: the dashboard asks for every partner's at once (report-gate.ts).
  const statement = async (e: H3Event) => {
    const [programId, partnerId] = [num(e, 'id'), num(e, 'partnerId')];
    const limits = { limitMs: ctx.config.REPORT_TIMEOUT_MS, wait: true };
    return statementToWire(
      await ctx.reports.run(`statement:${programId}`, 'A partner statement of this program', limits, () =>
        ctx.reads.read([programKey(programId), partnerKey(partnerId)], (d) =>
          getPartnerStatement(d, programId, partnerId),
        ),
      ),
    );
  };
  on('get', '/programs/:id/partners/:partnerId/statement', statement);
  on('get', '/programs/:id/partners/:partnerId/account', statement);
}

const id = z.number().int().positive();
const statementOp = (path: string, operationId: string, summary: string) =>
  adminOperation('get', path, operationId, summary, {
    params: { id, partnerId: id },
    description:
      "A program's statements are computed one at a time, the others waiting their turn within `REPORT_TIMEOUT_MS` (past it: 503 `service_unavailable`).",
    errors: ['not_found', 'service_unavailable'],
    responses: { 200: { description: 'The statement', schema: statementBody } },
  });

export const payoutOperations = [
  adminOperation(
    'post',
    '/programs/:id/partners/:partnerId/payouts',
    'openPayout',
    "Open a payout (a withdrawal) of a partner's credited commissions",
    {
      params: { id, partnerId: id },
      body: openPayoutSchema,
      errors: ['not_found'],
      responses: { 201: { description: 'The open payout', schema: payoutBody } },
    },
  ),
  adminOperation('post', '/programs/:id/payouts/:payoutId/pay', 'payPayout', 'Mark an open payout paid', {
    params: { id, payoutId: id },
    errors: ['not_found'],
    responses: { 200: { description: 'The paid payout and its commissions', schema: paidPayoutBody } },
  }),
  adminOperation('post', '/programs/:id/payouts/:payoutId/cancel', 'cancelPayout', 'Cancel an open payout', {
    params: { id, payoutId: id },
    errors: ['not_found'],
    responses: { 200: { description: 'The cancelled payout', schema: payoutBody } },
  }),
  adminOperation('get', '/programs/:id/payouts/:payoutId', 'getPayout', 'A payout and the commissions it pays', {
    params: { id, payoutId: id },
    errors: ['not_found'],
    responses: { 200: { description: 'The payout', schema: paidPayoutBody } },
  }),
  adminOperation(
    'post',
    '/programs/:id/commissions/:cid/pay',
    'payCommission',
    'Pay one credited commission (a payout of it alone)',
    {
      params: { id, cid: id },
      errors: ['not_found'],
      responses: { 200: { description: 'The paid payout and the commission', schema: paidPayoutBody } },
    },
  ),
  statementOp(
    '/programs/:id/partners/:partnerId/statement',
    'getPartnerStatement',
    "A partner's statement: credits, reversals, payouts and balance per currency, ledger, payouts",
  ),
  statementOp(
    '/programs/:id/partners/:partnerId/account',
    'getPartnerAccount',
    "A partner's statement (older name of `statement`)",
  ),
];
