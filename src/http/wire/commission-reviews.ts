import { z } from 'zod';
import type { ReviewAction, ReviewResult } from '../../core/rewards/review-commissions.ts';
import { ERROR_CODES } from '../../core/shared/errors.ts';
import { commissionRow } from '../openapi/entity-rows.ts';
import { rowToWire } from './records.ts';

// Many commissions decided at once (routes/admin-commissions.ts).

const int = z.number().int();

export const reviewResultsBody = z.strictObject({
  action: z.enum(['approve', 'reject']),
  decided: int.meta({ description: 'How many were approved or rejected' }),
  refused: int.meta({ description: 'How many were left as they were (see each `error`)' }),
  results: z.array(
    z.union([
      z.strictObject({ commission_id: int, ok: z.literal(true), commission: commissionRow }),
      z.strictObject({
        commission_id: int,
        ok: z.literal(false),
        error: z.strictObject({ code: z.enum(ERROR_CODES), message: z.string() }),
      }),
    ]),
  ),
});
export type ReviewResultsBody = z.infer<typeof reviewResultsBody>;

export function reviewResultsToWire(action: ReviewAction, results: ReviewResult[]): ReviewResultsBody {
  const decided = results.filter((r) => r.ok).length;
  return {
    action,
    decided,
    refused: results.length - decided,
    results: results.map((r) =>
      r.ok
        ? { commission_id: r.commissionId, ok: true as const, commission: rowToWire(r.commission) }
        : { commission_id: r.commissionId, ok: false as const, error: { code: r.code, message: r.message } },
    ),
  };
}
