import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { EXPORT_KINDS } from '../../core/reporting/exports.ts';
import { validate } from '../validate.ts';
import { csvResponse, exportKind, exportQuerySchema, exportWindow } from '../csv-response.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';

const adminExportQuery = exportQuerySchema.extend({
  /** One partner's rows only (required for `statement`). */
  partner_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
});

/** `GET /programs/:id/exports/:kind`: a CSV of commissions, sales, refunds, payouts or a partner's statement. */
export function registerExportRoutes(ctx: RouteContext, { on, num }: AdminHelpers): void {
  on('get', '/programs/:id/exports/:kind', async (e) => {
    const kind = exportKind(e.context.params?.kind, EXPORT_KINDS);
    const q = validate(adminExportQuery, Object.fromEntries(e.url.searchParams));
    const programId = num(e, 'id');
    const scope = { ...exportWindow(q), partnerId: q.partner_id ?? null };
    const name = `program-${programId}${q.partner_id ? `-partner-${q.partner_id}` : ''}`;
    // One export of a program at a time (csv-response.ts).
    return csvResponse(ctx, programId, kind, scope, name, {
      key: `export:${programId}`,
      label: 'An export of this program',
    });
  });
}

export const exportOperations = [
  adminOperation('get', '/programs/:id/exports/:kind', 'exportCsv', 'Export rows of the program as CSV', {
    params: { id: z.number().int().positive(), kind: z.enum(EXPORT_KINDS) },
    query: adminExportQuery,
    description:
      "Commissions, sales, refunds, payouts, or one partner's `statement` (`partner_id` required: their ledger, every line naming the sale, refund, lead or payout that caused it, with the running balance and a hash chain, and the latest signed checkpoint on the line it signed: docs/statement-verification.md). Oldest first, streamed (memory stays one page of 250 rows whatever the size). Amounts are integer minor units of the row's `currency` (`*_cents`) and, in the last columns, decimal strings in the currency's precision; times are ISO 8601 UTC. `partner_id` keeps one partner's rows. A `.csv` suffix on the kind is accepted. Cells a spreadsheet would run as a formula are prefixed with `'`. One export of a program at a time (another meanwhile: 429 `rate_limited` with `retry_after_seconds`), within `EXPORT_TIMEOUT_MS` (503 `service_unavailable` when reached before the first byte, else the download is cut off).",
    errors: ['not_found', 'invalid_request', 'service_unavailable'],
    responses: { 200: { description: 'The CSV (header row first)', contentType: 'text/csv' } },
  }),
];
