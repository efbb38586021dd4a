import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { resetWebhookEventsForReplay } from '../../core/webhooks/webhook-inbox.ts';
import { buildWebhookJob } from '../../core/jobs/webhook-job.ts';
import { webhookJobOptions } from '../../queue/job-options.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { replayBody, type ReplayBody } from '../wire/responses.ts';
import { replaySchema } from '../wire/requests.ts';

/** The webhook inbox: replaying one row, or every failed one (one row's detail: admin-dashboard.ts). */
export function registerWebhookEventAdminRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/webhook-events/replay', async (e) => {
    const { id } = validate(replaySchema, await body(e));
    const ids = await resetWebhookEventsForReplay(ctx.deps(), num(e, 'id'), id);
    for (const inboxId of ids) {
      await ctx.queue.add(
        'webhook',
        buildWebhookJob(inboxId),
        webhookJobOptions(ctx.config, inboxId, { kind: 'replay', at: Date.now() }),
      );
    }
    return { replayed: ids } satisfies ReplayBody;
  });
}

const id = z.number().int().positive();

export const webhookEventAdminOperations = [
  adminOperation(
    'post',
    '/programs/:id/webhook-events/replay',
    'replayWebhookEvents',
    'Replay one inbox row (not a processed one), or every failed one',
    {
      params: { id },
      body: replaySchema,
      bodyOptional: true,
      errors: ['not_found'],
      responses: {
        200: { description: 'Rows put back to pending', schema: replayBody },
      },
    },
  ),
];
