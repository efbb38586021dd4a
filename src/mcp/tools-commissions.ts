import { z } from 'zod';
import { explainCommission } from '../core/reporting/explain-commission.ts';
import { approveCommission, type ChangedCommission } from '../core/rewards/approve-commission.ts';
import { rejectHeldCommission, releaseHeldCommission } from '../core/rewards/review-held-commission.ts';
import type { CoreDeps } from '../core/deps.ts';
import { enqueueEventDeliveries } from '../queue/enqueue-events.ts';
import { commissionRow } from '../http/openapi/entity-rows.ts';
import { recordToWire, row, rowToWire } from '../http/wire/records.ts';
import { defineTool } from './define-tool.ts';
import { idInput } from './tool-inputs.ts';
import { recordAuditEntry } from '../core/audit/audit-log.ts';

const explain = defineTool({
  name: 'explain_commission',
  title: 'Why a commission stands where it does',
  description:
    'Why a commission is held (the fraud rules that matched and their evidence, or a disputed customer), was reversed or reduced (each refund, chargeback or rejection), is still pending (the hold period), or was credited and paid.',
  scope: 'read',
  input: { commission_id: idInput('The commission id') },
  output: {
    state: z.enum(['held', 'pending', 'credited', 'paid', 'partly_refunded', 'reversed']),
    reasons: z.array(z.string()).describe('Oldest cause first'),
    commission: commissionRow,
    refunds: z.array(row),
  },
  async run(args, { ctx, grant }) {
    const e = await explainCommission(ctx.deps(), grant.programId, args.commission_id);
    return {
      state: e.state,
      reasons: e.reasons,
      commission: recordToWire(e.commission),
      refunds: e.refunds.map(recordToWire),
    };
  },
});

/** A decision tool: the use-case the admin route runs, its outbound events enqueued after it committed. */
const decision = (
  name: string,
  title: string,
  description: string,
  use: (deps: CoreDeps, programId: number, commissionId: number) => Promise<ChangedCommission>,
) =>
  defineTool({
    name,
    title,
    description,
    scope: 'write',
    changes: true,
    input: { commission_id: idInput('The commission id') },
    output: { commission: commissionRow },
    async run(args, { ctx, grant, caller }) {
      const r = await use(ctx.deps(), grant.programId, args.commission_id);
      await enqueueEventDeliveries(ctx, r.deliveryIds);
      const commission = rowToWire(r.commission);
      // Recorded like an admin change; the decision is committed whatever happens to the entry.
      await recordAuditEntry(
        ctx.deps(),
        { kind: 'mcp_token', staffUserId: null, email: null, tokenId: grant.tokenId, via: 'mcp', ...caller },
        {
          programId: grant.programId,
          action: `mcp ${name}`,
          path: '/mcp',
          status: 200,
          before: undefined,
          after: { commission },
        },
      ).catch((err: unknown) => ctx.log.error({ err, tool: name }, 'audit entry not recorded'));
      return { commission };
    },
  });

export const commissionTools = [
  explain,
  decision(
    'approve_commission',
    'Approve a commission',
    'Credits a pending commission to the partner balance before its hold period ends. A commission held by fraud rules is released or rejected instead.',
    approveCommission,
  ),
  decision(
    'release_held_commission',
    'Release a held commission',
    'Releases a commission held by fraud rules and credits it to the partner balance, exactly once.',
    releaseHeldCommission,
  ),
  decision(
    'reject_held_commission',
    'Reject a held commission',
    'Rejects a commission held by fraud rules: reversed whole; it was never credited, so no balance moves.',
    rejectHeldCommission,
  ),
];
