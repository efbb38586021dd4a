import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { withoutDatabaseBound } from '../../core/db/db-bound.ts';
import {
  lastLedgerVerification,
  recordLedgerVerification,
  verifyLedger,
  type LedgerVerifyReport,
} from '../../core/reporting/verify-ledger.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { ledgerVerifyBody, lastVerificationBody, type LedgerVerificationBody } from '../wire/ledger-verification.ts';

export function ledgerReportToWire(r: LedgerVerifyReport): z.infer<typeof ledgerVerifyBody> {
  return {
    program_id: r.programId,
    verified_at: r.verifiedAt.toISOString(),
    clean: r.clean,
    differences: r.differences,
    first_differences: r.firstDifferences.map((d) => ({
      partner_id: d.partnerId,
      table: d.table,
      row_id: d.rowId,
      field: d.field,
      expected: d.expected,
      stored: d.stored,
      message: d.message,
    })),
    partners: r.partners,
    rows: r.rows,
    elapsed_ms: r.elapsedMs,
  };
}

/** The ledger verification (docs/ledger-verification.md): run it, and read the last one. */
export function registerLedgerVerifyRoutes(ctx: RouteContext, { on, num }: AdminHelpers): void {
  on('post', '/programs/:id/ledger/verify', async (e) => {
    const deps = ctx.deps();
    const programId = num(e, 'id');
    // One verification of a program at a time, within REPORT_TIMEOUT_MS (report-gate.ts).
    const limits = { limitMs: ctx.config.REPORT_TIMEOUT_MS };
    const r = await ctx.reports.run(
      `ledger-verify:${programId}`,
      'A ledger verification of this program',
      limits,
      (signal) => withoutDatabaseBound(() => verifyLedger(deps, programId, { signal })),
    );
    await recordLedgerVerification(deps, r);
    return ledgerReportToWire(r);
  });
  on('get', '/programs/:id/ledger/verification', async (e) => {
    const v = await lastLedgerVerification(ctx.deps(), num(e, 'id'));
    return {
      verification: v && {
        verified_at: v.verifiedAt.toISOString(),
        clean: v.differences === 0,
        differences: v.differences,
        first_difference: v.firstDifference ?? null,
      },
    } satisfies LedgerVerificationBody;
  });
}

export const ledgerVerifyOperations = [
  adminOperation('post', '/programs/:id/ledger/verify', 'verifyLedger', "Verify the program's ledger", {
    params: { id: z.number().int().positive() },
    description:
      "Recomputes every commission, reversal, balance posting, partner balance and signed statement checkpoint of the program from its recorded sales, refunds, payouts and rewards, compares them with what is stored, and answers the first difference of each partner. Nothing of the ledger is written; the result is kept as the program's last verification. One verification of a program runs at a time (another meanwhile: 429 `rate_limited` with `retry_after_seconds`), within `REPORT_TIMEOUT_MS` (past it: 503 `service_unavailable`).",
    errors: ['not_found', 'service_unavailable'],
    responses: { 200: { description: 'The verification report', schema: ledgerVerifyBody } },
  }),
  adminOperation('get', '/programs/:id/ledger/verification', 'getLedgerVerification', 'The last ledger verification', {
    params: { id: z.number().int().positive() },
    description: "When the program's ledger was last verified, whether it was clean, and its first difference.",
    errors: ['not_found'],
    responses: { 200: { description: 'The last verification', schema: lastVerificationBody } },
  }),
];
