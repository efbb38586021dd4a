import type { H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { createPayoutRun, getPayoutRun } from '../../core/payouts/payout-runs.ts';
import { previewPayoutRun } from '../../core/payouts/preview-payout-run.ts';
import { payoutPreviewBody, payoutPreviewQuery, payoutPreviewToWire } from '../wire/payout-preview.ts';
import { confirmPayout, confirmPayoutRun, failPayout } from '../../core/payouts/settle-payouts.ts';
import { buildPayoutFile, PAYOUT_FILE_FORMATS } from '../../core/payouts/payout-files.ts';
import { sendRunTransfers } from '../../core/payouts/payout-transfers.ts';
import { readPayoutMethod } from '../../core/payouts/payout-methods.ts';
import { validate } from '../validate.ts';
import { json } from '../route.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import {
  paidPayoutToWire,
  payoutMethodBody,
  payoutMethodToWire,
  payoutRunBody,
  payoutRunToWire,
  type PayoutRunBody,
} from '../wire/payouts.ts';
import { paidPayoutBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { payoutFailSchema, payoutRunSchema } from '../wire/requests.ts';

const fileQuery = z.object({ format: z.enum(PAYOUT_FILE_FORMATS).optional() });

/**
 * Payout runs (docs/balances-and-payouts.md, "Payout runs"): a run creates `processing` payouts for every partner over the
 * minimum; its file goes to PayPal or Wise, or Stripe Connect transfers are made at once; the
 * merchant then confirms the payouts paid or marks them failed (the balance gets the amount back).
 *   GET  /programs/:id/payout-runs/preview?currency=&rail=              → who a run would pay or pass by, and why
 *   POST /programs/:id/payout-runs                    {currency, rail?} → 201 {run, payouts, skipped, transfers?}
 *   GET  /programs/:id/payout-runs/:runId                                → {run, payouts, skipped}
 *   GET  /programs/:id/payout-runs/:runId/file?format=                   → the rail's file (download)
 *   POST /programs/:id/payout-runs/:runId/transfers  Stripe Connect, again → {run, payouts, transfers}
 *   POST /programs/:id/payout-runs/:runId/confirm    every processing one → {run, payouts}
 *   POST /programs/:id/payouts/:payoutId/confirm                         → {payout, commissions}
 *   POST /programs/:id/payouts/:payoutId/fail        {reason}             → {payout, commissions}
 *   GET  /programs/:id/partners/:partnerId/payout-method                 → {payout_method} (kind and hint)
 * Lists: GET /programs/:id/payout-runs (the generic list route).
 */
export function registerPayoutRunRoutes(ctx: RouteContext, { on, num, body, emitting }: AdminHelpers): void {
  const transfersOf = async (e: H3Event, runId: number) => {
    const report = await emitting((d) => sendRunTransfers(d, num(e, 'id'), runId));
    return payoutRunToWire(await getPayoutRun(ctx.deps(), num(e, 'id'), runId), report);
  };
  on('post', '/programs/:id/payout-runs', async (e) => {
    const b = validate(payoutRunSchema, await body(e));
    const created = await emitting((d) => createPayoutRun(d, num(e, 'id'), b));
    const wire = payoutRunToWire(created);
    if (created.run.rail !== 'stripe_connect' || !created.payouts.length) return json(wire, 201);
    return json({ ...(await transfersOf(e, created.run.id)), skipped: wire.skipped } satisfies PayoutRunBody, 201);
  });
  on('get', '/programs/:id/payout-runs/preview', async (e) => {
    const q = validate(payoutPreviewQuery, Object.fromEntries(e.url.searchParams));
    return payoutPreviewToWire(
      await previewPayoutRun(ctx.deps(), num(e, 'id'), {
        currency: q.currency ?? null,
        ...(q.rail && { rail: q.rail }),
      }),
    );
  });
  on('get', '/programs/:id/payout-runs/:runId', async (e) =>
    payoutRunToWire(await getPayoutRun(ctx.deps(), num(e, 'id'), num(e, 'runId'))),
  );
  on('get', '/programs/:id/payout-runs/:runId/file', async (e) => {
    const q = validate(fileQuery, Object.fromEntries(e.url.searchParams));
    const file = await buildPayoutFile(ctx.deps(), num(e, 'id'), num(e, 'runId'), q.format);
    return new Response(file.body, {
      headers: {
        'content-type': file.contentType,
        'content-disposition': `attachment; filename="${file.filename}"`,
        'cache-control': 'no-store',
      },
    });
  });
  on('post', '/programs/:id/payout-runs/:runId/transfers', async (e) => transfersOf(e, num(e, 'runId')));
  on('post', '/programs/:id/payout-runs/:runId/confirm', async (e) => {
    await emitting((d) => confirmPayoutRun(d, num(e, 'id'), num(e, 'runId')));
    return payoutRunToWire(await getPayoutRun(ctx.deps(), num(e, 'id'), num(e, 'runId')));
  });
  on('post', '/programs/:id/payouts/:payoutId/confirm', async (e) =>
    paidPayoutToWire(await emitting((d) => confirmPayout(d, num(e, 'id'), num(e, 'payoutId')))),
  );
  on('post', '/programs/:id/payouts/:payoutId/fail', async (e) => {
    const b = validate(payoutFailSchema, await body(e));
    return paidPayoutToWire(await emitting((d) => failPayout(d, num(e, 'id'), num(e, 'payoutId'), b.reason)));
  });
  on('get', '/programs/:id/partners/:partnerId/payout-method', async (e) =>
    payoutMethodToWire(await readPayoutMethod(ctx.deps(), num(e, 'id'), num(e, 'partnerId'))),
  );
}

const id = z.number().int().positive();
const runOk = (description: string) => ({ 200: { description, schema: payoutRunBody } });

export const payoutRunOperations = [
  adminOperation('get', '/programs/:id/payout-runs/preview', 'previewPayoutRun', 'What a payout run would do now', {
    params: { id },
    query: payoutPreviewQuery,
    errors: ['not_found', 'invalid_request'],
    description:
      'Every partner with a balance or commissions not credited yet, per currency: paid (and how much) or passed by, with the reason (`skip_code`: `negative_balance`, `held`, `no_payout_details`, `method_not_in_run`, `below_minimum`, checked in that order) and the amounts behind it. Nothing is written; a run started now applies the same rules.',
    responses: { 200: { description: 'The preview', schema: payoutPreviewBody } },
  }),
  adminOperation('post', '/programs/:id/payout-runs', 'createPayoutRun', 'Start a payout run in one currency', {
    params: { id },
    body: payoutRunSchema,
    errors: ['not_found'],
    description:
      "Every partner whose payable amount (commissions credited before the hold) reaches the minimum, and who has payout details of the rail, gets a `processing` payout; a partner's open payout (their request) becomes their payout, paying everything due. The others are listed in `skipped` with the reason (as the preview says), also on the run's page. Stripe Connect runs make the transfers at once.",
    responses: { 201: { description: 'The run, its payouts and the partners passed by', schema: payoutRunBody } },
  }),
  adminOperation('get', '/programs/:id/payout-runs/:runId', 'getPayoutRun', 'A payout run and its payouts', {
    params: { id, runId: id },
    errors: ['not_found'],
    responses: runOk('The run, its payouts and the partners it passed by'),
  }),
  adminOperation('get', '/programs/:id/payout-runs/:runId/file', 'getPayoutRunFile', "The run's bulk-payment file", {
    params: { id, runId: id },
    query: fileQuery,
    errors: ['not_found'],
    description:
      "`paypal_csv` (PayPal Payouts web upload), `paypal_json` (PayPal Payouts API body) or `wise_csv` (Wise batch payment, send by email); default: the first of the run's rail.",
    responses: { 200: { description: 'The file', contentType: ['text/csv', 'application/json'] } },
  }),
  adminOperation(
    'post',
    '/programs/:id/payout-runs/:runId/transfers',
    'sendPayoutRunTransfers',
    "Make the Stripe Connect transfers of a run's processing payouts (again: never twice)",
    { params: { id, runId: id }, errors: ['not_found'], responses: runOk('The run and the transfers') },
  ),
  adminOperation(
    'post',
    '/programs/:id/payout-runs/:runId/confirm',
    'confirmPayoutRun',
    'Confirm every processing payout of a run paid',
    {
      params: { id, runId: id },
      errors: ['not_found'],
      responses: runOk('The run'),
    },
  ),
  adminOperation(
    'post',
    '/programs/:id/payouts/:payoutId/confirm',
    'confirmPayout',
    'Confirm a processing payout paid',
    {
      params: { id, payoutId: id },
      errors: ['not_found'],
      responses: { 200: { description: 'The paid payout and its commissions', schema: paidPayoutBody } },
    },
  ),
  adminOperation(
    'post',
    '/programs/:id/payouts/:payoutId/fail',
    'failPayout',
    'Mark a processing (or paid) payout failed: its amount goes back to the balance',
    {
      params: { id, payoutId: id },
      body: payoutFailSchema,
      errors: ['not_found'],
      responses: {
        200: { description: 'The failed payout and the commissions payable again', schema: paidPayoutBody },
      },
    },
  ),
  adminOperation(
    'get',
    '/programs/:id/partners/:partnerId/payout-method',
    'getPartnerPayoutMethod',
    "A partner's payout details: the kind and a hint, never the details",
    {
      params: { id, partnerId: id },
      errors: ['not_found'],
      responses: { 200: { description: 'The payout method (null: none)', schema: payoutMethodBody } },
    },
  ),
];
