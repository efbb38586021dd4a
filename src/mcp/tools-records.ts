import { z } from 'zod';
import { listRecords } from '../core/reporting/list-records.ts';
import { getWebhookEventDetail } from '../core/webhooks/webhook-event-detail.ts';
import { COMMISSION_STATUSES, SALE_PROVIDERS } from '../core/shared/vocabulary.ts';
import { commissionRow, webhookEventRow } from '../http/openapi/entity-rows.ts';
import { recordToWire, row } from '../http/wire/records.ts';
import { defineTool } from './define-tool.ts';
import { idInput, nextBefore, nextBeforeOutput, pageInput } from './tool-inputs.ts';

const searchCommissions = defineTool({
  name: 'search_commissions',
  title: 'Search commissions',
  description:
    "The program's commissions, newest first, by status, partner or hold. `hold` names the fraud rules that held one; explain_commission says why one stands where it does.",
  scope: 'read',
  input: {
    status: z.enum(COMMISSION_STATUSES).optional(),
    partner_id: idInput('Only this partner’s').optional(),
    held: z.boolean().optional().describe('true: only those held for review; false: only those not held'),
    ...pageInput,
  },
  output: { commissions: z.array(commissionRow), next_before: nextBeforeOutput },
  async run(args, { ctx, grant }) {
    const rows = await listRecords(ctx.deps(), grant.programId, 'commissions', {
      limit: args.limit,
      offset: 0,
      status: args.status,
      partnerId: args.partner_id,
      held: args.held,
      before: args.before,
    });
    return { commissions: rows.map(recordToWire), next_before: nextBefore(rows, args.limit) };
  },
});

const listHeldCommissions = defineTool({
  name: 'list_held_commissions',
  title: 'Held commissions',
  description:
    'Commissions held for review (fraud rules that matched, or a disputed customer), newest first: the approval list. Release or reject them with release_held_commission / reject_held_commission.',
  scope: 'read',
  input: { ...pageInput },
  output: { commissions: z.array(commissionRow), next_before: nextBeforeOutput },
  async run(args, { ctx, grant }) {
    const rows = await listRecords(ctx.deps(), grant.programId, 'commissions', {
      limit: args.limit,
      offset: 0,
      held: true,
      before: args.before,
    });
    return { commissions: rows.map(recordToWire), next_before: nextBefore(rows, args.limit) };
  },
});

const searchSales = defineTool({
  name: 'search_sales',
  title: 'Search sales',
  description: "The program's attributed and unattributed sales, newest first, by partner or payment provider.",
  scope: 'read',
  input: {
    partner_id: idInput('Only this partner’s').optional(),
    provider: z.enum(SALE_PROVIDERS).optional(),
    ...pageInput,
  },
  output: { sales: z.array(row), next_before: nextBeforeOutput },
  async run(args, { ctx, grant }) {
    const rows = await listRecords(ctx.deps(), grant.programId, 'sales', {
      limit: args.limit,
      offset: 0,
      partnerId: args.partner_id,
      provider: args.provider,
      before: args.before,
    });
    return { sales: rows.map(recordToWire), next_before: nextBefore(rows, args.limit) };
  },
});

/** An inbox row without its payload (buyer data): the status, what was read and the outcome. */
const eventStatus = webhookEventRow.omit({ payload: true });

const webhookEventStatus = defineTool({
  name: 'webhook_event_status',
  title: 'Webhook event status',
  description:
    'Payment-provider webhook events received by the program: one by id, or the latest by status (`failed` ones carry their error). Payloads are not shown.',
  scope: 'read',
  input: {
    event_id: idInput('One event').optional(),
    status: z.enum(['pending', 'processed', 'ignored', 'failed']).optional(),
    ...pageInput,
  },
  output: { events: z.array(eventStatus), next_before: nextBeforeOutput },
  async run(args, { ctx, grant }) {
    const deps = ctx.deps();
    if (args.event_id !== undefined) {
      const { payload: _payload, ...event } = await getWebhookEventDetail(deps, grant.programId, args.event_id);
      return { events: [recordToWire(event)], next_before: null };
    }
    const rows = await listRecords(deps, grant.programId, 'webhook-events', {
      limit: args.limit,
      offset: 0,
      status: args.status,
      before: args.before,
    });
    return { events: rows.map(recordToWire), next_before: nextBefore(rows, args.limit) };
  },
});

export const recordTools = [searchCommissions, listHeldCommissions, searchSales, webhookEventStatus];
